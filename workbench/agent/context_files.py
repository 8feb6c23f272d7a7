"""Project instructions: AGENTS.md (or CLAUDE.md) files, as users of pi and Claude Code expect.

Read from `~/.pi/agent/` first, then from the repository root down to the working folder, so the
most specific instructions come last. One file per folder: AGENTS.md, or CLAUDE.md when there is no
AGENTS.md (many projects keep one as a link to the other).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from workbench.config import agent_dir

NAMES = ("AGENTS.md", "CLAUDE.md")


@dataclass(frozen=True)
class ContextFile:
    path: Path
    text: str


def _repository_root(cwd: Path) -> Path:
    """The nearest folder at or above `cwd` holding `.git`; `cwd` itself outside a repository."""
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return cwd


def _file_in(folder: Path) -> ContextFile | None:
    for name in NAMES:
        path = folder / name
        if path.is_file():
            try:
                return ContextFile(path, path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError):
                continue  # an unreadable file is skipped, not fatal
    return None


def context_files(cwd: Path) -> list[ContextFile]:
    """The instruction files for a session in `cwd`, general first, most specific last."""
    cwd = cwd.resolve()
    root = _repository_root(cwd)
    folders = [agent_dir()]
    chain = [cwd, *cwd.parents]
    folders += reversed(chain[: chain.index(root) + 1])
    found: list[ContextFile] = []
    seen: set[Path] = set()
    for folder in folders:
        file = _file_in(folder)
        if file is not None and file.path.resolve() not in seen:
            seen.add(file.path.resolve())
            found.append(file)
    return found
