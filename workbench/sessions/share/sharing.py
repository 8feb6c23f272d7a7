"""Sharing as the front ends call it: push and pull by project folder and session id prefix.

The app's `/push` and the `workbench push` command call `push`; `workbench pull` calls `pull`.
"""

from __future__ import annotations

from pathlib import Path

from workbench.errors import UsageError
from workbench.sessions.share.pull import PullResult, pull_sessions
from workbench.sessions.share.push import PushResult, push_session
from workbench.sessions.store.catalog import pick_session, session_infos
from workbench.sessions.store.location import find_storage
from workbench.sessions.store.refs import ConversationRepo


def push(
    project_root: Path, session: str | None = None, remote: str | None = None, redact: bool = False
) -> PushResult:
    """Push the session named by an id prefix (default: the most recent one)."""
    location = find_storage(project_root)
    if location is None:
        raise UsageError(f"no sessions in {project_root}", "start one with `workbench`")
    repo = ConversationRepo(location.runner())
    try:
        info = pick_session(session_infos(repo.sessions(), project_root), session, project_root)
    finally:
        repo.close()
    return push_session(location, info.id, remote, redact)


def pull(project_root: Path, remote: str | None = None) -> PullResult:
    """Pull every session on `remote` into the project's storage (made if need be)."""
    from workbench.sessions.store.location import ensure_storage

    return pull_sessions(ensure_storage(project_root), remote)
