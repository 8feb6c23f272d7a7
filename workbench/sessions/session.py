"""An open session: its conversation store, its workspaces and every tree command.

This is what the runtime holds. `store` is the `ConversationStore` the agent appends to;
`workspace()` is where the agent's tools run for the current branch. Every command runs its git
work on the store's serial worker, so it never interleaves with an append. Model-written text
(a commit message draft, a branch summary) comes from callables the runtime passes in.
"""

from __future__ import annotations

import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from workbench.agent.store import Entry, messages_of
from workbench.config import Settings
from workbench.errors import UsageError, WorkbenchError
from workbench.messages import Message, new_id
from workbench.sessions.store.catalog import pick_session, session_infos
from workbench.sessions.store.identity import begin_conversation_identity
from workbench.sessions.store.location import StorageLocation, ensure_storage, find_storage
from workbench.sessions.store.lock import SessionLock
from workbench.sessions.store.refs import ConversationRepo, SessionRefs
from workbench.sessions.store.state import SessionState
from workbench.sessions.store.store import GitConversationStore
from workbench.sessions.workspaces.fork import ForkResult, fork_branch
from workbench.sessions.workspaces.workspace import Workspaces
from workbench.trust import project_settings

if TYPE_CHECKING:  # each command imports its module when it runs: `workbench fork` needs few
    import asyncio

    from workbench.sessions.navigation import NavigateResult
    from workbench.sessions.tree import Tree
    from workbench.sessions.workspaces.commit import CommitResult
    from workbench.sessions.workspaces.merge import MergeResult
    from workbench.sessions.workspaces.rewind import FilesRestored
    from workbench.sessions.workspaces.status import BranchStatus

Drafter = Callable[[str], Awaitable[str]]
"""Prompt in, model text out: drafts a commit message."""
Summarizer = Callable[[list[Message]], Awaitable[str]]
"""Messages in, a goal-first summary out: for branch summaries and merge summaries."""

MAX_LABEL = 200
BRANCH_WRITER = "WORKBENCH_BRANCH_WRITER"
"""Set to `<session>/<branch>` by a sweep for each run it starts: that process opens the session
on that branch alone, locking the branch instead of the session (the sweep holds the session's
lock) and never writing the session's state (the sweep writes it)."""
"""Labels show in the tree and the chat: longer text belongs in a message."""


class Session:
    """One open session of a project."""

    def __init__(
        self,
        location: StorageLocation,
        store: GitConversationStore,
        settings: Settings,
        notices: list[str],
    ) -> None:
        self.location = location
        self.store = store
        self.settings = settings
        custom = settings.get("sessions.worktrees_dir")
        root = (
            (location.project_root / str(custom)).resolve() / store.session_id
            if custom
            else location.default_worktree_root(store.session_id)
        )
        self.workspaces = Workspaces(location, root)
        self.notices = notices
        """Things the user should be told about opening (a lock taken over, a merge settled)."""

    # --- opening ---------------------------------------------------------------------------

    @classmethod
    def create(cls, project_root: Path, settings: Settings | None = None) -> Session:
        """A new, empty session (nothing is written until its first entry or fork)."""
        location = ensure_storage(project_root)
        session_id = new_id()
        lock = SessionLock.acquire(location.lock_dir / f"{session_id}.lock", session_id)
        state = SessionState.new(session_id, time.time(), project_root)
        found = SessionRefs(session_id, state, None, {}, 0.0)
        return cls._assemble(location, found, settings, lock)

    @classmethod
    def open(
        cls,
        project_root: Path,
        session_id: str | None = None,
        branch: str | None = None,
        readonly: bool = False,
        settings: Settings | None = None,
    ) -> Session:
        """Resume a session: by id prefix, or the most recent one; optionally on `branch`.

        Read-only sessions take no lock (so `tree` and `status` work while the session is open
        elsewhere) and refuse every write.
        """
        location = find_storage(project_root)
        if location is None:
            raise UsageError(f"no sessions in {project_root}", "start one with `workbench`")
        repo = ConversationRepo(location.runner())
        try:
            infos = session_infos(repo.sessions(), project_root)
            info = pick_session(infos, session_id, project_root)
        finally:
            repo.close()
        lock = None
        one_branch = branch is not None and os.environ.get(BRANCH_WRITER) == f"{info.id}/{branch}"
        if not readonly:
            name = f"{info.id}@{branch}" if one_branch else info.id
            lock = SessionLock.acquire(location.lock_dir / f"{name}.lock", name)
        session = cls._assemble(location, None, settings, lock, info.id)
        session.store.writes_state = not one_branch
        try:
            if not readonly and not one_branch and session.store.state.pending_merge:
                from workbench.sessions.workspaces.merge import finish_interrupted_merge

                notice = finish_interrupted_merge(session.store)
                session.notices += [notice] if notice else []
            if branch is not None:
                session.store.record(branch)
                if branch != session.store.branch or session.store.is_detached():
                    session.store.move_to_branch(branch)
        except BaseException:
            session.close()
            raise
        return session

    @classmethod
    def _assemble(
        cls,
        location: StorageLocation,
        found: SessionRefs | None,
        settings: Settings | None,
        lock: SessionLock | None,
        session_id: str | None = None,
    ) -> Session:
        """Build the session around a held lock (or none); on any failure the lock is released."""
        try:
            settings = settings or project_settings(location.project_root)
            runner = location.runner()
            identity = begin_conversation_identity(location.project_runner())  # beside the read
            try:
                if found is None:
                    # Read again under the lock: the listing may predate another process's write.
                    found = next(iter(ConversationRepo(runner).sessions(session_id)), None)
            finally:
                writer = runner.with_env(identity().env())
            repo = ConversationRepo(writer)
            if found is None or found.state is None:
                raise WorkbenchError(
                    f"session {session_id} disappeared while it was being opened",
                    "`workbench sessions` lists the sessions there are",
                )
            store = GitConversationStore(repo, found.state, found.state_blob, found.heads, lock)
        except BaseException:
            if lock is not None:
                lock.release()
            raise
        notices = [lock.notice] if lock and lock.notice else []
        return cls(location, store, settings, notices)

    # --- the runtime's view ----------------------------------------------------------------

    @property
    def id(self) -> str:
        return self.store.session_id

    @property
    def branch(self) -> str:
        return self.store.branch

    def workspace(self, branch: str | None = None, create: bool = True) -> Path:
        """The directory the agent's tools run in for `branch` (default: the current one); with
        `create` False, where it is or will be, without making a missing worktree."""
        return self.workspaces.directory(self.store.state, branch or self.store.branch, create)

    # --- commands --------------------------------------------------------------------------

    async def tree(self) -> Tree:
        from workbench.sessions.tree import build_tree

        return await self.store.run(lambda: build_tree(self.store))

    async def status(self, branch: str | None = None) -> BranchStatus:
        from workbench.sessions.workspaces.status import branch_status

        name = branch or self.store.branch
        return await self.store.run(lambda: branch_status(self.store, self.workspaces, name))

    async def diff(self, branch: str | None = None, path: str | None = None) -> str:
        """The unified diff of a branch's files since its fork, untracked files as added;
        only under `path` when given. Read-only: works in a read-only session too."""
        from workbench.sessions.workspaces.diff import branch_diff

        name = branch or self.store.branch
        return await self.store.run(
            lambda: branch_diff(self.store, self.workspaces, name, path).text
        )

    async def fork(
        self, name: str, at: str | None = None, defer_worktree: bool = False
    ) -> ForkResult:
        """A new branch; with `defer_worktree` its worktree is made by `ready_workspace` later
        (the checkout takes most of a fork's time)."""
        return await self.store.run(lambda: self.fork_now(name, at, defer_worktree))

    def fork_now(
        self, name: str, at: str | None = None, defer_worktree: bool = False
    ) -> ForkResult:
        """`fork` on the calling thread: for a caller with no event loop and nothing else running
        on the session (`workbench fork`, which then needs neither asyncio nor the worker)."""
        return fork_branch(self.store, self.workspaces, name, at, defer_worktree)

    async def ready_workspace(self, branch: str | None = None) -> Path:
        """`workspace(branch)` on the git worker: a deferred or missing worktree is made there,
        in order with every other git job of the session (appends, status, commit)."""
        name = branch or self.store.branch
        return await self.store.run(lambda: self.workspace(name))

    async def switch_branch(self, branch: str) -> None:
        """Go to the head of `branch`."""
        await self.store.run(lambda: self.store.move_to_branch(self.store.record(branch).name))

    async def navigate(
        self,
        target: str,
        summarize: Summarizer | None = None,
        restore_files: bool = False,
        files_at: str | None = None,
    ) -> NavigateResult:
        """Move to an entry (id, prefix or label); optionally summarize the path left behind.
        With `restore_files`, the workspace's files go back to what they were at that entry
        (or at `files_at`): refused, and nothing moves, when files changed outside the agent."""
        from workbench.agent.costs import text_usage
        from workbench.sessions.navigation import NavigateResult, abandoned_path
        from workbench.sessions.workspaces.rewind import plan_rewind, rewind

        def move() -> tuple[Entry, list[Entry], FilesRestored | None]:
            entry = self.store.resolve(target)
            plan = None
            if restore_files:
                at = self.store.resolve(files_at).id if files_at else entry.id
                plan = plan_rewind(self.store, self.workspaces, entry.branch, at)
            before = self.store.path()
            self.store.move_to(entry)
            files = rewind(plan, entry.id) if plan is not None else None
            return entry, abandoned_path(before, self.store.path()), files

        entry, left, files = await self.store.run(move)
        summary = None
        if summarize is not None and messages_of(left):
            written = await summarize(messages_of(left))
            text = written.strip()
            if text:
                details = {"abandoned_head": left[-1].id, "entries": len(left)}
                if text_usage(written) is not None:  # what the summary cost counts here
                    details["usage"] = text_usage(written)
                message = Message(role="branch_summary", text=text, details=details)
                summary = await self.store.append("branch_summary", message.to_dict())
        detached = self.store.is_detached()
        return NavigateResult(entry, self.store.branch, detached, left, summary, files)

    async def files_to_restore(self, target: str, files_at: str | None = None) -> list[str]:
        """The files that navigating to `target` with `restore_files` would change; raises
        `ChangedOutside` when it would be refused."""
        from workbench.sessions.workspaces.rewind import plan_rewind

        def plan() -> list[str]:
            entry = self.store.resolve(target)
            at = self.store.resolve(files_at).id if files_at else entry.id
            return plan_rewind(self.store, self.workspaces, entry.branch, at).changed

        return await self.store.run(plan)

    async def snapshot(self) -> None:
        """Record the current branch's files at the current entry, when they changed."""
        await self.snapshot_soon()

    def snapshot_soon(self) -> asyncio.Future[None]:
        """`snapshot`, queued now among the session's writes (so it is taken at the entry
        that is current now, before the entries appended after this call); await it or not."""
        from workbench.sessions.workspaces.rewind import take_snapshot

        return self.store.submit(lambda: take_snapshot(self.store, self.workspaces))

    async def back_before(
        self, target: str, restore_files: bool = False
    ) -> tuple[NavigateResult, str]:
        """Move to just before the question `target` (pi's edit and resend): its text comes
        back so that it can be asked again, and the answer starts a new branch. With
        `restore_files`, the files go back to what they were when it was asked."""
        entry = await self.store.run(lambda: self.store.resolve(target))
        message = entry.message()
        if entry.type != "user" or message is None:
            raise UsageError(
                "only a question can be edited and resent",
                "pick one of your messages (›) in the tree",
            )
        if entry.parent is None:
            raise UsageError(
                "the first question of a session has nothing before it",
                "/new starts a session where it can be asked differently",
            )
        moved = await self.navigate(entry.parent, None, restore_files, entry.id)
        return moved, message.text

    async def label(self, label: str, target: str | None = None) -> Entry:
        """Label an entry (default: the current one, labels skipped); labels show in the tree.

        The label entry goes on the head of the current branch, so labelling never starts a
        branch, even from a position that is not a head.
        """
        label = label.strip()
        if not label or "\n" in label or "\0" in label or len(label) > MAX_LABEL:
            raise UsageError(
                f"a label is one non-empty line of at most {MAX_LABEL} characters",
                "for example: before-refactor",
            )

        def job() -> Entry:
            if target:
                entry_id: str | None = self.store.resolve(target).id
            else:
                content = [e for e in self.store.path() if e.type != "label"]
                entry_id = content[-1].id if content else None
            if entry_id is None:
                raise UsageError("there is no entry to label yet", "label after the first message")
            payload = {"target": entry_id, "label": label}
            return self.store.append_to_branch(self.store.branch, "label", payload)

        return await self.store.run(job)

    def commit_trailers(self) -> list[str]:
        """The trailers `commit` adds to the current branch's next commit (its cost and tokens
        since its fork), read from the current path: no git process, no wait."""
        from workbench.sessions.workspaces.commit_trailers import branch_trailers, own_on_path

        return branch_trailers(own_on_path(self.store.path(), self.store.branch))

    async def commit(
        self, message: str | None = None, draft: Drafter | None = None, branch: str | None = None
    ) -> CommitResult:
        """Commit the branch's files; without `message`, `draft` (the model) writes it."""
        from workbench.sessions.workspaces.commit import CommitResult, commit_branch

        name = branch or self.store.branch
        if message is None:
            message = await self.draft_commit_message(draft, name)
            if message is None:
                return CommitResult(name, None, "", [], None)
        final = message
        return await self.store.run(lambda: commit_branch(self.store, self.workspaces, name, final))

    async def draft_commit_message(
        self, draft: Drafter | None, branch: str | None = None
    ) -> str | None:
        """The model's commit message for the branch's changes; None when nothing changed."""
        from workbench.sessions.workspaces.commit import draft_prompt
        from workbench.sessions.workspaces.commit_message import format_commit_message

        name = branch or self.store.branch
        prompt = await self.store.run(lambda: draft_prompt(self.store, self.workspaces, name))
        if prompt is None:
            return None
        if draft is None:
            raise UsageError(
                "commit needs a message: pass -m MESSAGE",
                "without -m, the model drafts the message (in the TUI, once a model is set)",
            )
        return format_commit_message(await draft(prompt))

    async def merge(
        self,
        branch: str | None = None,
        into: str | None = None,
        summarize: Summarizer | None = None,
        remove_worktree: bool | None = None,
    ) -> MergeResult:
        """Merge `branch` (default: the current one) into its parent or `into`. Conflicts and
        everything else that refuses a merge are found before `summarize` is asked; it sees
        only what the parent does not have yet."""
        from workbench.agent.costs import text_usage
        from workbench.sessions.workspaces.merge import merge_branch, plan_merge

        name = branch or self.store.branch
        plan = await self.store.run(lambda: plan_merge(self.store, self.workspaces, name, into))
        summary, usage = None, None
        if summarize is not None:
            written = await summarize(messages_of(plan.new))
            summary, usage = written.strip() or None, text_usage(written)
        remove = remove_worktree
        if remove is None:
            remove = bool(self.settings.get("sessions.remove_worktree_after_merge", False))
        return await self.store.run(
            lambda: merge_branch(self.store, self.workspaces, plan, summary, remove, usage)
        )

    # --- closing ---------------------------------------------------------------------------

    def close(self) -> None:
        """Finish queued writes, stop git helpers, release the lock (as `store.close()`)."""
        self.store.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
