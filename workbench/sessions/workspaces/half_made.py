"""Telling a worktree that `git worktree add` has not finished making from one that is ready.

`git worktree add` writes the worktree's `.git` file early, then checks the files out. Until the
checkout is done, the worktree's admin folder (`<git dir>/worktrees/<id>/`, the folder the `.git`
file names) holds a `locked` file reading "initializing", which git removes as its last step; `git
worktree list --porcelain` shows it as `locked initializing`. A git killed in between leaves that
marker behind, next to a folder with some or none of the files: not a place to run tools.

git translates the marker's word; workbench's git runs through GitPython, which sets
`LC_ALL=C` and `LANGUAGE=C`, so every worktree workbench makes is marked in English.

Since git runs in a session of its own (see `gitcmd`), a workbench killed during a fork leaves a
git that goes on making the worktree; a worktree still marked may be one a live git is finishing.
`adders` finds such a git by its command line.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

MARKER = "initializing"


def _admin_folder(worktree: Path) -> Path | None:
    """The admin folder the worktree's `.git` file points to (None: no such file)."""
    try:
        pointer = (worktree / ".git").read_text(encoding="utf-8")
    except OSError:  # missing, or a folder: not a linked worktree
        return None
    if not pointer.startswith("gitdir:"):
        return None
    admin = Path(pointer.removeprefix("gitdir:").strip())
    return admin if admin.is_absolute() else worktree / admin


def initializing(worktree: Path) -> bool:
    """Whether git marks the worktree at `worktree` as still being made."""
    admin = _admin_folder(worktree)
    if admin is None:
        return False
    try:
        return (admin / "locked").read_text(encoding="utf-8").strip() == MARKER
    except OSError:
        return False


def adders(worktree: Path) -> list[int] | None:
    """The process ids of every `git worktree add` of `worktree` still running; None when they
    cannot be listed (no `ps`)."""
    try:
        listing = subprocess.run(
            ["ps", "-A", "-ww", "-o", "pid=,args="], capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    found = []
    for line in listing.splitlines():
        pid, _, args = line.strip().partition(" ")
        words = args.split()
        if "worktree" in words and "add" in words and str(worktree) in words:
            found.append(int(pid))
    return found
