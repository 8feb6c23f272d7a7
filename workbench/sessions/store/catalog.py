"""The sessions of a project: listing them and picking one by id prefix or recency."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from workbench.errors import UsageError
from workbench.sessions.store.location import find_storage
from workbench.sessions.store.refs import ConversationRepo, SessionRefs
from workbench.text import count_of


@dataclass(frozen=True)
class SessionInfo:
    """One line of `workbench sessions`."""

    id: str
    name: str
    created: float
    last_activity: float
    branches: list[str]
    current_branch: str
    first_prompt: str = ""
    entries: int = 0
    """On the current branch's path; both filled by `list_sessions`."""
    authors: list[str] = field(default_factory=list)
    """Who worked on it: the git authors of its first entry (when pulled) and of the branches'
    newest entries."""
    remote: str = ""
    """The remote it was pulled from ("": made here)."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def render_text(self) -> str:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.last_activity))
        branches = count_of(len(self.branches), "branch", "branches")
        size = count_of(self.entries, "entry", "entries")
        title = self.name or self.first_prompt or "(unnamed)"
        who = f"  by {', '.join(self.authors)}" if self.authors else ""
        where = f"  from {self.remote}" if self.remote else ""
        return f"{self.id}  {when}  {branches}  {size}  {title}{who}{where}"


def session_infos(found: list[SessionRefs], directory: Path) -> list[SessionInfo]:
    """The sessions of the checkout at `directory`, most recently active first."""
    infos = [
        SessionInfo(
            refs.session_id,
            refs.state.name,
            refs.state.created,
            max(refs.state.updated, refs.last_entry_time),
            sorted(refs.state.branches),
            refs.state.position.branch,
            authors=sorted({a for a in [*refs.authors.values(), refs.state.made_by] if a}),
            remote=refs.state.remote,
        )
        for refs in found
        if refs.state is not None and refs.state.belongs_to(directory)
    ]
    return sorted(infos, key=lambda info: info.last_activity, reverse=True)


def list_sessions(project_root: Path) -> list[SessionInfo]:
    """Every session of the project, most recently active first (none when nothing is stored)."""
    location = find_storage(project_root)
    if location is None:
        return []
    repo = ConversationRepo(location.runner())
    try:
        found = repo.sessions()
        infos = session_infos(found, project_root)
        heads = {refs.session_id: refs.heads for refs in found}
        outlined = []
        for info in infos:
            head = heads[info.id].get(info.current_branch)
            first, size = repo.outline(head) if head else ("", 0)
            outlined.append(replace(info, first_prompt=first, entries=size))
        return outlined
    finally:
        repo.close()


def pick_session(infos: list[SessionInfo], wanted: str | None, project_root: Path) -> SessionInfo:
    """The session named by an id prefix, or the most recent one when `wanted` is None."""
    if not infos:
        raise UsageError(
            f"no sessions in {project_root}", "start one with `workbench`, then come back"
        )
    if wanted is None:
        return infos[0]
    matches = [info for info in infos if info.id.startswith(wanted)]
    if len(matches) == 1:
        return matches[0]
    hint = "`workbench sessions` lists them"
    if not matches:
        raise UsageError(f"no session {wanted!r} in {project_root}", hint)
    raise UsageError(f"{wanted!r} names {len(matches)} sessions", f"give more of the id; {hint}")
