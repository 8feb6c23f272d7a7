"""A sweep's data between the driver and the workers, through a git remote (as sessions travel).

The driver pushes the session (`workbench push`: its refs, the runs' project branches, the
credential check) to a remote the workers reach; each worker pulls it into a folder of its own,
checks out its run's branch in a worktree, and after the run commits the run's files and pushes
the branch back; the driver then brings that branch's entries and files into its own refs and
worktree. Nothing relies on a disk the driver and the workers share.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from workbench.sessions.session import Session
from workbench.sessions.share.pull import pull_sessions
from workbench.sessions.share.push import push_session
from workbench.sessions.share.remote import chosen_remote, fetch
from workbench.sessions.store.gitcmd import GitRunner
from workbench.sessions.store.identity import Identity
from workbench.sessions.store.location import StorageLocation, ensure_storage
from workbench.sessions.store.refs import ConversationRepo, branch_ref
from workbench.sessions.workspaces.workspace import project_branch_name

OWN_REMOTE = "sweep-remote.git"
"""The bare repository the driver makes when no `--remote` is given: it serves one machine."""


def sweep_remote(location: StorageLocation, remote: str | None) -> str:
    """The remote the workers reach: the one named, else a bare repository of the driver's own
    (never the team's upstream unless the user names it)."""
    if remote:
        return chosen_remote(location, remote)
    own = location.private_dir / OWN_REMOTE
    if not (own / "HEAD").exists():
        GitRunner(location.private_dir).run("init", "--quiet", "--bare", str(own))
    return str(own)


def send_session(location: StorageLocation, session_id: str, remote: str) -> None:
    """Push the session, as `workbench push` does (credentials found stop it, saying where)."""
    push_session(location, session_id, remote)


def bring_back(
    location: StorageLocation, remote: str, session_id: str, branch: str, worktree: Path
) -> None:
    """The run's branch as its worker pushed it: its entries into the session's own ref and its
    files into its worktree, both fast-forward only (nothing else writes them meanwhile)."""
    theirs = fetch(location, remote, session_id).get(session_id)
    if theirs is None or branch not in theirs.branches:
        return
    repo = ConversationRepo(location.runner())
    try:
        ref = branch_ref(session_id, branch)
        have = repo.git.try_run("rev-parse", "--verify", "--quiet", ref).stdout.strip() or None
        tip = theirs.branches[branch]
        if have != tip and (have is None or repo.is_ancestor(have, tip)):
            repo.move_refs([(ref, tip, have)])
    finally:
        repo.close()
    files = theirs.files.get(branch)
    if files is None:
        return
    if (worktree / ".git").exists():
        GitRunner(worktree).run("merge", "--ff-only", "--quiet", files)
    else:  # no worktree here yet: its project branch moves, and it is made from it on first use
        project = location.project_runner()
        name = f"refs/heads/{project_branch_name(session_id, branch)}"
        have = project.try_run("rev-parse", "--verify", "--quiet", name).stdout.strip()
        project.run("update-ref", name, files, *([have] if have else []))


def check_out(remote: str, session_id: str, branch: str, folder: Path, who: Identity) -> Path:
    """A project of the worker's own in `folder` with the session pulled from `remote`; returns
    the run's worktree (made from its project branch)."""
    project = folder / "project"
    subprocess.run(["git", "init", "--quiet", str(project)], check=True, capture_output=True)
    for key, value in (("user.name", who.name), ("user.email", who.email)):
        GitRunner(project).run("config", key, value)
    pull_sessions(ensure_storage(project), remote, session_id)
    with Session.open(project, session_id, branch) as session:
        return session.workspace(branch)


async def send_back(folder: Path, remote: str, session_id: str, branch: str, message: str) -> None:
    """Commit the run's files on its project branch (a checkpoint on its branch) and push the
    session back: only the run's own branch has moved."""
    project = folder / "project"
    with Session.open(project, session_id, branch) as session:
        await session.commit(message, branch=branch)
    push_session(ensure_storage(project), session_id, remote)
