"""The files a branch changed in its worktree, read with `git status` and `git diff`."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

from workbench.sessions.store.gitcmd import GitRunner

Change = Literal["added", "modified", "deleted"]
DIFF_CHANGES: dict[str, Change] = {"A": "added", "D": "deleted"}
"""`git diff --name-status` codes that are not a modification."""


@dataclass(frozen=True)
class FileChange:
    """One file that differs from the branch's base."""

    path: str
    change: Change
    uncommitted: bool

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def uncommitted_paths(git: GitRunner) -> dict[str, str]:
    """Paths with uncommitted changes (untracked included, ignored files not) -> status code."""
    out = git.run(
        "status", "--porcelain=v1", "-z", "--no-renames", "--untracked-files=all", strip=False
    )
    return {item[3:]: item[:2] for item in out.split("\0") if len(item) > 3}


def _change_of_status(code: str) -> Change:
    if code == "??" or "A" in code:
        return "added"
    return "deleted" if "D" in code else "modified"


def changed_files(git: GitRunner, base: str | None) -> tuple[list[FileChange], bool]:
    """Files changed since `base` (committed or not) and whether the worktree is dirty.

    With no base (a branch working in the project checkout itself) only uncommitted changes
    count.
    """
    pending = uncommitted_paths(git)
    changes: dict[str, Change] = {}
    if base:
        out = git.run("diff", "--name-status", "-z", "--no-renames", base, strip=False)
        fields = [f for f in out.split("\0") if f]
        for code, path in zip(fields[::2], fields[1::2], strict=True):
            changes[path] = DIFF_CHANGES.get(code[0], "modified")
    for path, code in pending.items():
        if code == "??" or not base:
            changes[path] = _change_of_status(code)
    files = [FileChange(p, c, p in pending) for p, c in sorted(changes.items())]
    return files, bool(pending)
