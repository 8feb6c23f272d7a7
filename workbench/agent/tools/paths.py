"""The path a file tool is asked for, relative to the working folder."""

from __future__ import annotations

from pathlib import Path

from workbench.errors import WorkbenchError


def resolve_path(cwd: Path, raw: str) -> Path:
    """A tool's path argument, relative to the working directory (`~` and a stray `@` allowed)."""
    if not raw.strip():
        raise WorkbenchError(
            "path is empty", "pass the file's path, relative to the working folder"
        )
    path = Path(raw.strip().removeprefix("@")).expanduser()
    return path if path.is_absolute() else cwd / path
