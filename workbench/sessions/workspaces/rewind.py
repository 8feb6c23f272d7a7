"""Going back with the files: the workspace's files as they were at an entry, restored.

`workbench navigate ENTRY --restore-files`, and the app's tree when the user says yes, restore
the files of the branch's workspace to the snapshot taken at that entry (or the newest one
before it; `snapshots.py`): everything the agent's tools changed since, bash included. The files
as they are now are the latest snapshot already, so going back again undoes the restore. Files
changed outside the agent since its latest snapshot would be lost: then nothing is restored
(and nothing moves), and the refusal names them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from workbench.errors import WorkbenchError
from workbench.sessions.store.store import GitConversationStore
from workbench.sessions.workspaces.snapshots import Snapshots
from workbench.sessions.workspaces.workspace import Workspaces
from workbench.text import count_of

SHOWN = 5
"""The changed files a message names; the rest are counted."""


def named(paths: list[str]) -> str:
    shown = ", ".join(paths[:SHOWN])
    return shown + (f" and {len(paths) - SHOWN} more" if len(paths) > SHOWN else "")


class ChangedOutside(WorkbenchError):
    """Files changed outside the agent since its latest snapshot: a restore would lose them."""

    def __init__(self, files: list[str]) -> None:
        super().__init__(
            f"files not restored: {count_of(len(files), 'file')} changed outside the agent "
            f"since its last snapshot: {named(files)}",
            "a restore would lose those changes: undo them, or copy them aside, then restore "
            "again (going there without restoring files works as before)",
        )
        self.files = files


@dataclass
class FilesRestored:
    """What a restore changed, and the entry to go back to (with its files) to undo it."""

    changed: list[str] = field(default_factory=list)
    undo: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def render_text(self) -> str:
        if not self.changed:
            return "files: nothing to restore, they are as they were at this point"
        files = count_of(len(self.changed), "file")
        text = f"files restored to this point: {files} ({named(self.changed)})"
        if self.undo:
            text += (
                f"\nto undo: go back to {self.undo[:10]} with its files "
                f"(workbench navigate {self.undo[:10]} --restore-files)"
            )
        return text


def workspace_snapshots(
    store: GitConversationStore, workspaces: Workspaces, branch: str
) -> Snapshots:
    """The snapshots of the workspace `branch` works in (made when it is missing)."""
    owner = workspaces.owner(store.state, branch)
    key = "checkout" if owner is None else f"worktree.{owner.name}"
    directory = workspaces.directory(store.state, branch)
    return Snapshots.of(store.repo.git, workspaces.location, store.session_id, key, directory)


def take_snapshot(store: GitConversationStore, workspaces: Workspaces) -> None:
    """The current branch's files, at the current entry, when they changed."""
    snapshots = workspace_snapshots(store, workspaces, store.branch)
    snapshots.take(store.position_entry())


@dataclass
class Rewind:
    """A restore, checked and ready: the snapshot to go back to, from the `current` tree."""

    snapshots: Snapshots
    snapshot: str | None
    current: str
    changed: list[str]


def plan_rewind(
    store: GitConversationStore, workspaces: Workspaces, branch: str, files_at: str
) -> Rewind:
    """The restore of `branch`'s workspace to its files at entry `files_at`; refused when
    files changed outside the agent since its latest snapshot."""
    snapshots = workspace_snapshots(store, workspaces, branch)
    path = [entry.id for entry in store.repo.read_path(files_at)]
    snapshot = snapshots.at(path)
    current = snapshots.files()
    if snapshot is None:
        return Rewind(snapshots, None, current, [])
    latest_tree = snapshots.newest()[1]
    if latest_tree is not None and latest_tree != current:
        raise ChangedOutside(snapshots.changed(latest_tree, current))
    return Rewind(snapshots, snapshot, current, snapshots.changed(current, snapshot))


def rewind(plan: Rewind, entry: str) -> FilesRestored:
    """Restore the files `plan` found; they are then the latest snapshot, taken at `entry`."""
    if plan.snapshot is None or not plan.changed:
        return FilesRestored()
    latest = plan.snapshots.latest()
    undo = plan.snapshots.entry_of(latest) if latest else None
    changed = plan.snapshots.restore(plan.snapshot, plan.current, entry)
    return FilesRestored(changed, undo)
