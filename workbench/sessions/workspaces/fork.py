"""Forking: a new conversation branch at an entry, with its own worktree in a git project."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

from workbench.errors import DiskFull
from workbench.sessions.store.state import Position, Worktree
from workbench.sessions.store.store import GitConversationStore
from workbench.sessions.workspaces.files import uncommitted_paths
from workbench.sessions.workspaces.workspace import Workspaces
from workbench.text import count_of

T = TypeVar("T")
LEFT_BEHIND_SHOWN = 5
"""The uncommitted files a fork's text names; the rest are counted."""


@dataclass
class ForkResult:
    """What a fork created, and what it left behind in the parent."""

    branch: str
    parent: str
    fork_entry: str | None
    worktree: str | None
    note: str
    left_behind: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def render_text(self, show_path: Callable[[str], str] = str) -> str:
        """The fork's one text, on every surface (the app shortens paths with `show_path`)."""
        at = self.fork_entry[:10] if self.fork_entry else "the start"
        head = f"forked {self.branch} from {self.parent} at {at}"
        if self.worktree:
            head += f"; it works in its own worktree {show_path(self.worktree)}"
        elif self.note:
            head += f" ({self.note})"
        lines = [head]
        if self.left_behind:
            shown = ", ".join(self.left_behind[:LEFT_BEHIND_SHOWN])
            if len(self.left_behind) > LEFT_BEHIND_SHOWN:
                shown += f" and {len(self.left_behind) - LEFT_BEHIND_SHOWN} more"
            lines.append(
                f"{count_of(len(self.left_behind), 'uncommitted change')} in {self.parent} "
                f"stay there, not in the fork: {shown}"
            )
            lines.append(f"commit them in {self.parent} first if the fork needs them")
        return "\n".join(lines)


def fork_branch(
    store: GitConversationStore,
    workspaces: Workspaces,
    name: str,
    at: str | None,
    defer_worktree: bool = False,
    planned: tuple[Worktree | None, list[str], str] | None = None,
) -> ForkResult:
    """Create branch `name` at entry `at` (default: the current position) and move there.

    The parent is the current branch when the fork entry is on the current path, else the
    branch that holds the entry. The branch is recorded before its worktree is made, so an
    interrupted fork leaves a branch whose worktree is simply created on first use;
    `defer_worktree` leaves it to that first use (`Workspaces.directory`) on purpose.
    `planned`: its `Workspaces.plan`, made with others' (a sweep's forks, from the position).
    """
    store.check_new_branch(name)
    if at is None:
        fork_entry, parent = store.position_entry(), store.branch
    else:
        entry = store.resolve(at)
        fork_entry = entry.id
        on_path = any(e.id == fork_entry for e in store.path())
        parent = store.branch if on_path else entry.branch
    given = planned is not None
    reading: Callable[[], list[str]] | None = None
    walked: list[str] | None = None
    if planned is None:
        store.repo.prepare_moves()  # its git starts while the reads below run
        if workspaces.available:  # a walk of the parent's files, made beside the rest
            parent_git = workspaces.git(store.state, parent)
            reading = _beside(lambda: sorted(uncommitted_paths(parent_git)))
            if _walked_by(parent_git.directory, workspaces):  # not beside: it would see them
                walked, reading = reading(), None
        try:
            [planned] = workspaces.plan(store.session_id, [name], store.state, parent, False)
        except BaseException:
            _settle(reading)  # nothing of a refused fork goes on after it
            raise
        if planned[0] is None:  # no worktree (no commit yet): nothing is left behind
            _settle(reading)
            reading = None
        elif walked is not None:
            planned = (planned[0], walked, planned[2])
    worktree, left_behind, note = planned
    position = store.state.position
    try:
        store.add_branch(name, parent, fork_entry, worktree)
        if worktree is not None and not defer_worktree:
            workspaces.ensure(worktree, fresh=not given)
    except DiskFull:  # no half-made fork: the space it took is given back, the branch forgotten
        _undo(store, workspaces, name, worktree, position)
        raise
    if reading is not None:
        try:
            left_behind = reading()
        except BaseException:  # as when it was read first: no fork is made without its report
            _undo(store, workspaces, name, worktree, position)
            raise
    return ForkResult(
        name, parent, fork_entry, worktree.path if worktree else None, note, left_behind
    )


def _walked_by(directory: Path, workspaces: Workspaces) -> bool:
    """Whether a `git status` in `directory` walks the session's new worktrees (the setting
    `sessions.worktrees_dir` may put them inside the project; by default they are in its git
    directory, which status never walks)."""
    root = workspaces.worktree_root.resolve()
    inside = root.is_relative_to(directory.resolve())
    return inside and not root.is_relative_to(workspaces.location.private_dir.resolve())


def _undo(
    store: GitConversationStore,
    workspaces: Workspaces,
    name: str,
    worktree: Worktree | None,
    position: Position,
) -> None:
    """Forget a fork that could not be made whole and give back the space its worktree took."""
    if worktree is not None:
        workspaces.discard(worktree)
    store.forget_branch(name, position)


def _settle(reading: Callable[[], list[str]] | None) -> None:
    """Wait for a walk that is no longer needed, whatever it found or raised."""
    if reading is not None:
        with contextlib.suppress(Exception):
            reading()


def _beside(job: Callable[[], T]) -> Callable[[], T]:
    """Start `job` on a thread of its own (a git process it waits for); the call returned waits
    for it and returns what it returned or raises what it raised."""
    outcome: list[tuple[T | None, BaseException | None]] = []

    def work() -> None:
        try:
            outcome.append((job(), None))
        except BaseException as exc:  # raised again in the caller's thread
            outcome.append((None, exc))

    thread = threading.Thread(target=work, daemon=True)
    thread.start()

    def result() -> T:
        thread.join()
        value, error = outcome[0]
        if error is not None:
            raise error
        return cast(T, value)

    return result
