"""The path a file tool is asked for: relative to the working folder, inside the project when
the session confines its file tools there, and allowed by the session's sandbox (the rule the
bash tool's box enforces: writes only in the working tree, the hidden secrets unread)."""

from __future__ import annotations

from pathlib import Path

from workbench.config import find_project_root
from workbench.errors import WorkbenchError
from workbench.tool import ToolContext


def resolve_path(ctx: ToolContext, raw: str, writing: bool = False) -> Path:
    """A tool's path argument, relative to the working directory (`~` and a stray `@` allowed).
    A confined session refuses a path that leads (links followed) outside its folders; the
    sandbox refuses what its box would (`writing`: the tool writes the file)."""
    if not raw.strip():
        raise WorkbenchError(
            "path is empty", "pass the file's path, relative to the working folder"
        )
    path = Path(raw.strip().removeprefix("@")).expanduser()
    path = path if path.is_absolute() else ctx.cwd / path
    if ctx.confined_to is not None:
        real = path.resolve()
        if not any(real == root or root in real.parents for root in ctx.confined_to):
            raise WorkbenchError(
                f"{raw} is outside the project ({ctx.confined_to[0]}): this agent's file tools "
                "are confined to the project and its worktrees",
                "work with files inside the project",
            )
    if writing:
        ctx.sandbox.check_write(path, find_project_root(ctx.cwd))
    else:
        ctx.sandbox.check_read(path)
    return path
