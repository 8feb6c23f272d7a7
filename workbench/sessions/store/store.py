"""The git-backed conversation store: the `ConversationStore` the agent appends to.

It keeps the current path in memory (loaded once with one `git log`) and writes each entry as one
commit plus one compare-and-swap ref move, on the session's serial worker thread. An append has
finished when its coroutine returns: the commit and the ref are on disk, so a process killed after
that point loses nothing, and one killed before leaves at most an unreferenced object.

Appending at an entry that is not the head of its branch starts a new branch (`<branch>-N`,
never an existing name) whose parent is the branch left behind.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from workbench.agent.store import Entry, EntryType
from workbench.errors import UsageError, WorkbenchError
from workbench.sessions.store.entries import encode_entry
from workbench.sessions.store.lock import SessionLock
from workbench.sessions.store.refs import ConversationRepo, RefMove, branch_ref
from workbench.sessions.store.state import BranchRecord, Position, SessionState, Worktree
from workbench.sessions.store.worker import SerialWorker
from workbench.text import one_line

if TYPE_CHECKING:  # a command that needs no event loop (`workbench fork`) does not import it
    import asyncio

T = TypeVar("T")
MAX_BRANCH_NAME = 64
BRANCH_NAME = re.compile(rf"^[A-Za-z0-9][A-Za-z0-9._@-]{{0,{MAX_BRANCH_NAME - 1}}}$")
"""`@` for the lines a diverged pull keeps (`main@bob`) and the branches made from them."""
SESSION_NAME_WIDTH = 60
FULL_ID = re.compile(r"^[0-9a-f]{40}$")


class GitConversationStore:
    """One open session's conversation tree (implements `ConversationStore`)."""

    def __init__(
        self,
        repo: ConversationRepo,
        state: SessionState,
        state_blob: str | None,
        heads: dict[str, str],
        lock: SessionLock | None,
    ) -> None:
        """`lock` is the held session lock (None: read-only); `close()` releases it."""
        self.repo = repo
        self.state = state
        self.session_id = state.session_id
        self._state_blob = state_blob
        self._heads = dict(heads)
        self._lock = lock
        self._writable = lock is not None
        self.writes_state = True
        """False for a sweep's run (`Session.open` with a branch writer): it writes entries on
        its own branch only; the state is its parent's to write."""
        self._pulled_lines = self._lines_of_pulled_branches()
        self._path: list[Entry] | None = None
        """The current path: read from git when first asked for (`workbench fork` needs only
        the heads), then kept; `_path_lock` orders that reading with the worker's changes."""
        self._path_lock = threading.Lock()
        self._worker = SerialWorker(f"workbench-git-{self.session_id}")

    # --- reading -------------------------------------------------------------------------

    def _lines_of_pulled_branches(self) -> dict[str, str]:
        """Entry id -> branch for the lines a diverged pull kept (`main@bob`): their entries
        were written on the other side under the remote's name (`main`)."""
        found: dict[str, str] = {}
        for record in self.state.branches.values():
            head = self._heads.get(record.name)
            if record.written_as in (None, record.name) or head is None:
                continue
            parent_head = self._heads.get(record.parent or "")
            known = [c for c in (record.fork_entry, parent_head) if c]
            found.update((e.id, record.name) for e in self.repo.read_path(head, *known))
        return found

    def _named(self, entries: list[Entry]) -> list[Entry]:
        if not self._pulled_lines:
            return entries
        lines = self._pulled_lines
        return [dataclasses.replace(e, branch=lines[e.id]) if e.id in lines else e for e in entries]

    def _read_path(self, tip: str, *known: str) -> list[Entry]:
        return self._named(self.repo.read_path(tip, *known))

    @property
    def branch(self) -> str:
        return self.state.position.branch

    def path(self) -> list[Entry]:
        with self._path_lock:
            if self._path is None:
                tip = self.position_entry()
                self._path = self._read_path(tip) if tip else []
            return list(self._path)

    def record(self, branch: str) -> BranchRecord:
        """The record of a branch, or a usage error naming the branches there are."""
        found = self.state.branches.get(branch)
        if found is None:
            known = ", ".join(sorted(self.state.branches))
            raise UsageError(
                f"no branch {branch!r} in session {self.session_id}", f"branches: {known}"
            )
        return found

    def head(self, branch: str) -> str | None:
        """The newest entry of a branch: its ref, or its fork entry while it has none."""
        return self._heads.get(branch) or self.record(branch).fork_entry

    def position_entry(self) -> str | None:
        """The entry at the current position (None in an empty session)."""
        position = self.state.position
        return position.entry or self.head(position.branch)

    def is_detached(self) -> bool:
        """True when the position is on an entry that is not its branch's head."""
        return self.state.position.entry is not None

    def own_entries(self, branch: str, not_in: str | None = None) -> list[Entry]:
        """The entries written on `branch` itself, after its fork entry; with `not_in`, only
        those that branch does not have yet (what earlier merges into it brought is left out)."""
        tip = self.head(branch)
        if tip is None:
            return []
        fork = self.record(branch).fork_entry
        if fork == tip:
            return []
        known = [fork, self.head(not_in) if not_in else None]
        return self._read_path(tip, *(commit for commit in known if commit))

    def branch_path(self, branch: str) -> list[Entry]:
        """The entries from the root to the head of `branch` (first parents)."""
        tip = self.head(branch)
        return self._read_path(tip) if tip else []

    def all_entries(self) -> list[Entry]:
        return self._named(self.repo.read_all(self.session_id))

    def resolve(self, text: str) -> Entry:
        """An entry named by its id, an id prefix (4+ hex digits) or a label."""
        if FULL_ID.match(text):
            found_entry = self.repo.read_entry(text) if self.repo.has_commit(text) else None
            entry = self._named([found_entry])[0] if found_entry else None
            if entry and entry.branch in self.state.branches:
                tip = self.head(entry.branch)
                if tip and self.repo.is_ancestor(entry.id, tip):
                    return entry
        entries = self.all_entries()
        labelled = [e for e in entries if e.type == "label" and e.payload.get("label") == text]
        if labelled:
            text = labelled[-1].payload["target"]
        prefix = text.lower()
        found = [e for e in entries if len(prefix) >= 4 and e.id.startswith(prefix)]
        if len(found) == 1:
            return found[0]
        if not found:
            raise UsageError(
                f"no entry {text!r} in session {self.session_id}",
                "name an entry by 4+ leading characters of its id, or by a label; "
                "`workbench tree` lists them",
            )
        raise UsageError(
            f"{text!r} names {len(found)} entries", "give more characters of the entry id"
        )

    # --- writing (on the worker thread) --------------------------------------------------

    async def run(self, job: Callable[[], T]) -> T:
        """Run `job` on this session's serial git worker."""
        return await self._worker.run(job)

    def submit(self, job: Callable[[], T]) -> asyncio.Future[T]:
        """Queue `job` on the serial git worker now, in order with every other job."""
        return self._worker.submit(job)

    async def append(self, type: EntryType, payload: dict[str, Any]) -> Entry:
        return await self.run(lambda: self.append_now(type, payload))

    def append_now(self, type: EntryType, payload: dict[str, Any]) -> Entry:
        """Append at the current position; a detached position first gets a new branch."""
        self._check_writable()
        position = self.state.position
        if position.entry is not None:
            self.add_branch(self._free_name(position.branch), position.branch, position.entry, None)
        return self.append_to_branch(self.branch, type, payload)

    def append_to_branch(
        self,
        branch: str,
        type: EntryType,
        payload: dict[str, Any],
        merged_from: str | None = None,
    ) -> Entry:
        """Append at the head of `branch` (the position follows only if it was at that head)."""
        self._check_writable()
        name = one_line(str(payload.get("text", "")), SESSION_NAME_WIDTH) if type == "user" else ""
        if self._state_blob is None or (name and not self.state.name):
            self.state.name = self.state.name or name
            self.save_state()
        parent = self.head(branch)
        now = time.time()
        parents = [p for p in (parent, merged_from) if p]
        parents = list(dict.fromkeys(parents))  # a merge of nothing new has one parent
        commit = self.repo.write_entry(encode_entry(type, payload, branch, now), parents)
        self.repo.move_refs(
            [(branch_ref(self.session_id, branch), commit, self._heads.get(branch))]
        )
        entry = Entry(commit, parent, type, payload, now, branch)
        with self._path_lock:  # a path read meanwhile ends before the new head, or with it
            self._heads[branch] = commit
            if self._path is not None and self.state.position == Position(branch):
                self._path.append(entry)
        return entry

    def add_branch(
        self, name: str, parent: str, fork_entry: str | None, worktree: Worktree | None
    ) -> BranchRecord:
        """Record a new branch at `fork_entry` and move the position to it.

        The state and the branch ref are written in one git transaction: a process killed
        meanwhile leaves both or neither.
        """
        self._check_writable()
        self.check_new_branch(name)
        record = BranchRecord(name, parent, fork_entry, time.time(), worktree)
        self.state.branches[name] = record
        self.state.position = Position(name)
        self.save_state(
            [(branch_ref(self.session_id, name), fork_entry, None)] if fork_entry else []
        )
        if fork_entry:
            self._heads[name] = fork_entry
        with self._path_lock:  # not yet read: it is read from the new position when asked for
            if self._path is not None and fork_entry != (self._path[-1].id if self._path else None):
                self._path = self._read_path(fork_entry) if fork_entry else []
        return record

    def follow_heads(self, branches: list[str]) -> None:
        """Take up the heads another process wrote on `branches` (a sweep's runs write their
        own branches while this store stays open), so that reading and merging them sees their
        entries. A branch the position is on is not another process's to write."""
        found = self.repo.sessions(self.session_id)
        heads = found[0].heads if found else {}
        for name in branches:
            if name in heads and name != self.branch:
                self._heads[name] = heads[name]

    def forget_branch(self, name: str, position: Position) -> None:
        """Undo `add_branch` for a fork that could not be made (a full disk), back at
        `position`: in memory at once, on disk once a write goes through."""
        self.state.branches.pop(name, None)
        head = self._heads.pop(name, None)
        self.state.position = position
        tip = position.entry or self.head(position.branch)
        self._set_path(tip)
        if head is not None:
            self.repo.delete_ref(branch_ref(self.session_id, name), head)
        self.save_state()

    def move_to(self, entry: Entry) -> None:
        """Put the position on `entry` (at its branch's head when it is that head)."""
        self._check_writable()
        at_head = self.head(entry.branch) == entry.id
        self.state.position = Position(entry.branch, None if at_head else entry.id)
        self.save_state()
        self._set_path(entry.id)

    def move_to_branch(self, branch: str) -> None:
        """Put the position on the head of `branch`."""
        self._check_writable()
        tip = self.head(branch)
        self.state.position = Position(branch)
        self.save_state()
        self._set_path(tip)

    def _set_path(self, tip: str | None) -> None:
        """The path after the position moved to `tip` (None: an empty branch)."""
        with self._path_lock:
            self._path = self._read_path(tip) if tip else []

    def save_state(self, moves: Sequence[RefMove] = ()) -> None:
        """Write the state (unless this process does not: `writes_state`), moving the refs of
        `moves` with it."""
        self._check_writable()
        if not self.writes_state:
            if moves:
                self.repo.move_refs(moves)
            return
        self._state_blob = self.repo.write_state(self.state, self._state_blob, moves)

    def check_new_branch(self, name: str) -> None:
        """Refuse a taken name, or one that would not make a clean ref, path or project branch."""
        if not BRANCH_NAME.match(name) or name.endswith(".lock") or ".." in name:
            raise UsageError(
                f"invalid branch name {name[:80]!r}{'…' if len(name) > 80 else ''}",
                f"use letters, digits, '.', '_', '-' and '@' (up to {MAX_BRANCH_NAME} characters), "
                "starting with a letter or digit",
            )
        if name in self.state.branches:
            raise UsageError(f"branch {name!r} already exists", "pick another name")

    def _free_name(self, branch: str) -> str:
        """`<branch>-N` with the smallest N not taken (a trailing `-N` of `branch` is dropped,
        and the rest shortened so that the name stays within the length a name may have)."""
        base = re.sub(r"-\d+$", "", branch)
        taken = set(self.state.branches)
        names = (base[: MAX_BRANCH_NAME - len(f"-{n}")] + f"-{n}" for n in itertools.count(1))
        return next(name for name in names if name not in taken)

    def _check_writable(self) -> None:
        if not self._writable:
            raise WorkbenchError(
                f"session {self.session_id} was opened read-only", "open it for writing"
            )

    def close(self) -> None:
        """Finish queued writes, release git processes, then the session lock."""
        self._worker.close()
        self.repo.close()
        if self._lock is not None:
            self._lock.release()
