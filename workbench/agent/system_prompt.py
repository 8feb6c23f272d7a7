"""The system prompt: base instructions, the tools, project context files; then the working folder.

Built once per session and byte-identical across turns (no clock, no counters), so that provider
prompt caches hit; what changes per turn travels as messages. The working folder differs per
fork (each has its own worktree), so it is not part of the prompt but its suffix
(`working_folder`), sent after the cached prefix: forks share the cache of everything before
it. `--system-prompt` replaces the base instructions, `--append-system-prompt` adds to the end,
and `before_agent_start` hooks (the enforcer's skill topology, for example) may extend it.
"""

from __future__ import annotations

from pathlib import Path

from workbench.agent.context_files import ContextFile
from workbench.tool import Tool

BASE = """You are a capable coding assistant working in the user's project through workbench. \
You read files, run commands, edit code and write files with the tools below, and you answer \
plainly and briefly.

Guidelines:
- Read a file before you change it; use edit for precise changes and write for new files or \
complete rewrites.
- Use bash to search (rg, find, ls), run tests and inspect the system.
- When the user redirects you mid-task, follow the new direction.
- Mention file paths exactly when you refer to files."""


def build_system_prompt(
    *,
    tools: list[Tool],
    context_files: list[ContextFile],
    base: str | None = None,
    append: str | None = None,
) -> str:
    parts = [(base if base is not None else BASE).strip()]
    if tools:
        listing = "\n".join(f"- {t.name}: {t.description.split('. ')[0]}" for t in tools)
        parts.append(f"Available tools:\n{listing}")
    for file in context_files:
        parts.append(f"Project context from {file.path}:\n\n{file.text.strip()}")
    if append:
        parts.append(append.strip())
    return "\n\n".join(parts) + "\n"


def working_folder(cwd: Path) -> str:
    """The system prompt's suffix: where the tools run (see the module docstring)."""
    return f"Working folder: {cwd}"
