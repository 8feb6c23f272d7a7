"""The small, mutable part of a session: its branches, the current position, its name.

Entries are immutable commits; this record is what changes when you fork, navigate or merge. It
is one JSON blob that the ref `refs/workbench/<session>/state` points at, rewritten whole on those
rare commands only (never on an append: the position "at the head of a branch" follows appends
by itself). Read it with `git cat-file -p refs/workbench/<session>/state`.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from workbench.errors import WorkbenchError
from workbench.sessions.store.jsontext import json_bytes

STATE_VERSION = 1
MAIN_BRANCH = "main"


@dataclass
class Worktree:
    """A forked branch's own git worktree, on a project branch of its own."""

    path: str
    project_branch: str
    base: str
    """The commit the worktree was created from (the parent's commit at the fork)."""
    removed: bool = False
    parent_ref: str | None = None
    """The git branch the parent's checkout was on at the fork: a merge moves that one only."""


@dataclass
class BranchRecord:
    """Where a conversation branch came from; its head is the ref of the same name."""

    name: str
    parent: str | None
    fork_entry: str | None
    created: float
    worktree: Worktree | None = None
    upstream: str | None = None
    """The remote branch this one pushes to and pulls from, when not its own name: a line
    kept from a diverged pull (`main@bob`) follows the remote's `main` until it is merged into
    our `main`; then it is "" (kept here, following nothing)."""
    written_as: str | None = None
    """The name its entries were written under elsewhere, when not its own: a line a diverged
    pull kept (`main@bob`, written as `main` on Bob's side): the tree shows them as ours."""


@dataclass
class Position:
    """The current position: the head of `branch` when `entry` is None, else that entry."""

    branch: str
    entry: str | None = None


@dataclass
class PendingMerge:
    """A file merge about to move the parent's worktree; finished or dropped on the next open."""

    branch: str
    into: str
    commit: str
    worktree: str
    payload: dict[str, Any]


@dataclass
class SessionState:
    """Everything about a session that is not an entry."""

    session_id: str
    created: float
    updated: float
    position: Position
    branches: dict[str, BranchRecord]
    name: str = ""
    root: str = ""
    """The checkout the session was started in: the workspace of `main`."""
    pending_merge: PendingMerge | None = None
    version: int = STATE_VERSION
    remote: str = ""
    """The git remote the session was first pulled from ("": made here)."""
    made_by: str = ""
    """Who wrote its first entry, for a pulled session (the git author; "": made here)."""
    enforcer_mode: str = ""
    """The enforcer mode set for this session (an editor's mode menu); "": the settings'."""

    @classmethod
    def new(cls, session_id: str, now: float, root: Path) -> SessionState:
        main = BranchRecord(MAIN_BRANCH, parent=None, fork_entry=None, created=now)
        state = cls(session_id, now, now, Position(MAIN_BRANCH), {MAIN_BRANCH: main})
        state.root = str(root.resolve())
        return state

    def belongs_to(self, directory: Path) -> bool:
        """Whether `directory` is this session's checkout or one of its worktrees.

        One repository can have several checkouts (git worktrees), each with its own sessions.
        A session whose checkout no longer exists (the project moved) belongs everywhere.
        """
        here = directory.resolve()
        if not self.root or here == Path(self.root) or not Path(self.root).exists():
            return True
        worktrees = (b.worktree for b in self.branches.values() if b.worktree)
        return any(Path(w.path).resolve() == here for w in worktrees if not w.removed)

    def to_json(self) -> bytes:
        return json_bytes(asdict(self), indent=1)

    @classmethod
    def from_json(cls, data: bytes, where: str) -> SessionState:
        try:
            raw = json.loads(data)
            branches = {}
            for name, record in raw["branches"].items():
                worktree = record.get("worktree")
                record["worktree"] = Worktree(**worktree) if worktree else None
                branches[name] = BranchRecord(**record)
            pending = raw.get("pending_merge")
            return cls(
                session_id=raw["session_id"],
                created=raw["created"],
                updated=raw["updated"],
                position=Position(**raw["position"]),
                branches=branches,
                name=raw.get("name", ""),
                root=raw.get("root", ""),
                pending_merge=PendingMerge(**pending) if pending else None,
                version=raw.get("version", STATE_VERSION),
                remote=raw.get("remote", ""),
                made_by=raw.get("made_by", ""),
                enforcer_mode=raw.get("enforcer_mode", ""),
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise WorkbenchError(
                f"the session state at {where} cannot be read: {exc}",
                f"inspect it with `git cat-file -p {where}`",
            ) from exc
