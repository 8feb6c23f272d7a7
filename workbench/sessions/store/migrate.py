"""Moving sessions an earlier workbench kept in the project's own refs into the store repository.

Earlier, a git project's conversations were refs under `refs/workbench/` (and the remote views
under `refs/workbench-remotes/`) of the project itself, so `git log --all` listed every entry. On
the first open they are copied into the store (`location.py`) with every object they need, the
copy is checked, and only then are the old refs deleted from the project, each only if it still
holds what was copied. A process killed half-way leaves the old refs in place, and the next open
moves what is left. Locks and worktrees stay where they were (`<git dir>/workbench/`); the remote
views of experiments' file commits (`.../files/...`) are project commits and stay in the project.
"""

from __future__ import annotations

import fcntl
import os
import re
from pathlib import Path

from workbench.errors import WorkbenchError
from workbench.sessions.store.gitcmd import GitRunner

OLD_ROOTS = ("refs/workbench/", "refs/workbench-remotes/")
FILES_VIEW = re.compile(r"^refs/workbench-remotes/[^/]+/[^/]+/files/")
"""A remote's view of an experiment's file commits: project commits, kept in the project."""


def _refs(git: GitRunner) -> dict[str, str]:
    out = git.run("for-each-ref", "--format=%(refname) %(objectname)", *OLD_ROOTS)
    return {ref: oid for ref, _, oid in (line.partition(" ") for line in out.splitlines())}


def old_refs(project: GitRunner) -> dict[str, str]:
    """The conversation refs (name -> object) an earlier workbench left in the project."""
    return {ref: oid for ref, oid in _refs(project).items() if not FILES_VIEW.match(ref)}


def may_hold_old_refs(project_git_dir: Path) -> bool:
    """Whether the project may hold conversation refs of an earlier workbench, told from its
    files without a git process (every opening of a session would pay for one): such a ref is
    a file under `OLD_ROOTS` or a line of `packed-refs` (git's layout), unless the refs are a
    reftable or in a namespace, where only git can tell. The remote views of file commits stay
    in the project and do not count."""
    if "GIT_NAMESPACE" in os.environ or (project_git_dir / "reftable").exists():
        return True
    names = [
        f"{root}{Path(folder, file).relative_to(project_git_dir / root).as_posix()}"
        for root in OLD_ROOTS
        for folder, _, files in os.walk(project_git_dir / root)
        for file in files
    ]
    try:
        packed = (project_git_dir / "packed-refs").read_bytes()
    except FileNotFoundError:
        packed = b""
    except OSError:
        return True
    if any(f" {root}".encode() in packed for root in OLD_ROOTS):  # a scan, then the lines
        lines = os.fsdecode(packed).splitlines()
        names += [line.partition(" ")[2] for line in lines if line[:1] not in ("#", "^")]
    return any(name.startswith(OLD_ROOTS) and not FILES_VIEW.match(name) for name in names)


def move_old_sessions(project_git_dir: Path, store: GitRunner) -> None:
    """Move the project's old conversation refs into the store; nothing when there are none."""
    project = GitRunner(project_git_dir)
    if not may_hold_old_refs(project_git_dir) or not old_refs(project):
        return
    lock = project_git_dir / "workbench" / "store.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # a second process waits, then finds nothing left
        moving = old_refs(project)
        if moving:
            _copy(store, str(project_git_dir), moving)
            _delete(project, moving)
    finally:
        os.close(fd)


def _copy(store: GitRunner, source: str, moving: dict[str, str]) -> None:
    """Fetch the refs with their objects into the store (a ref the store already has is the
    store's: an earlier, interrupted move copied it), then check each one is whole there."""
    have = _refs(store)
    wanted = "".join(f"+{ref}:{ref}\n" for ref in moving if ref not in have)
    if wanted:
        store.run(
            "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--stdin", source,
            input=wanted.encode(),
        )  # fmt: skip
    now = _refs(store)
    lost = [ref for ref in moving if ref not in now]
    tips = "".join(f"{now[ref]}\n" for ref in moving if ref in now)
    kinds = store.run("cat-file", "--batch-check=%(objectname) %(objecttype)", input=tips.encode())
    commits = [line.split()[0] for line in kinds.splitlines() if line.endswith(" commit")]
    whole = "missing" not in kinds and (
        not commits or store.try_run("rev-list", "--objects", "--quiet", *commits, "--").status == 0
    )
    if lost or not whole:
        raise WorkbenchError(
            f"moving the sessions into {store.directory} did not copy everything "
            f"({', '.join(lost[:3]) or 'objects are missing'}): the project keeps them",
            "the sessions stay in the project's refs/workbench/ meanwhile; run `git fsck` in the "
            "project and report what it says",
        )


def _delete(project: GitRunner, moving: dict[str, str]) -> None:
    """Delete the moved refs from the project at once, each only if it still holds what was
    copied (an earlier workbench still running there keeps its newer entries)."""
    commands = "".join(f"delete {ref} {oid}\n" for ref, oid in moving.items())
    project.run("update-ref", "--stdin", input=commands.encode())
