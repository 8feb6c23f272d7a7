"""The conversation tree commands of `Workbench`, and what follows every branch change.

A thin layer over `workbench.sessions.Session`: each command runs there, and afterwards the
runtime follows the session to where it now stands (`_follow`): the agent's messages are rebuilt
from the store's path, the enforcer derives its state from the whole branch (`session_start`), the
tools move to the branch's workspace (a fork's worktree, made in the background) and a
`tree_update` event goes out. Tree changes are refused while the agent works: a run appends to
the branch it started on, and moving under it would split its turn across two branches.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from itertools import count
from pathlib import Path
from typing import Literal

from workbench.agent.events import Notice, TreeChange, TreeUpdate
from workbench.agent.loop import Agent
from workbench.agent.models.client import ModelRequest
from workbench.agent.store import ConversationStore, Entry, MemoryStore
from workbench.errors import UsageError, WorkbenchError
from workbench.hooks import HookBus, SessionStartEvent
from workbench.messages import Message
from workbench.runtime.context import branch_messages
from workbench.runtime.current import Current
from workbench.runtime.events import WorkbenchEvent
from workbench.runtime.folders import ProjectFolders
from workbench.runtime.readiness import Readiness
from workbench.sessions.file_history import FileHistory
from workbench.sessions.navigation import NavigateResult
from workbench.sessions.session import Session
from workbench.sessions.store.catalog import SessionInfo, list_sessions
from workbench.sessions.tree import Tree
from workbench.sessions.workspaces.commit import CommitResult
from workbench.sessions.workspaces.fork import ForkResult
from workbench.sessions.workspaces.half_made import initializing
from workbench.sessions.workspaces.merge import MergeResult
from workbench.sessions.workspaces.rewind import FilesRestored
from workbench.sessions.workspaces.status import BranchStatus

LEFT_BEHIND_FOCUS = (
    "This path of the conversation is being left to go on from an earlier point: keep what was "
    "tried, what was learned and what did not work, so it is not tried again blindly."
)
MERGE_FOCUS = (
    "This branch is being merged back into its parent: say what it achieved, what it changed "
    "and what is still open, for whoever continues on the parent."
)
COMMIT_SYSTEM_PROMPT = "You write git commit messages from the work that made the changes."
COMMIT_MAX_TOKENS = 1024
StartReason = Literal["start", "resume", "navigate", "fork", "new"]
START_REASONS: dict[str, StartReason] = {
    "fork": "fork",
    "navigate": "navigate",
    "switch": "navigate",
    "merge": "navigate",
    "new": "new",
    "resume": "resume",
}
"""The `session_start` reason each branch change runs the hooks with."""
Marker = tuple[str, str, str | None]


class ConversationTree:
    """The tree commands over the session in use, and the runtime's move after each change."""

    def __init__(
        self,
        current: Current,
        agent: Agent,
        bus: HookBus,
        folders: ProjectFolders,
        readiness: Readiness,
        lock: asyncio.Lock,
        emit: Callable[[WorkbenchEvent], None],
        use_workspace: Callable[[Path], None],
    ) -> None:
        self._current = current
        self._agent = agent
        self._bus = bus
        self._folders = folders
        self._readiness = readiness
        self._lock = lock
        """Held by every tree change and by the start of a run: one of them at a time."""
        self._emit = emit
        self._use_workspace = use_workspace
        """Moves the tools, the system prompt and the enforcer to a workspace."""
        self._branch = current.store.branch
        """The branch the runtime last followed (an append may start a new one)."""
        agent.state.checkpoints = FileHistory(lambda: current.session, emit)
        """The files around each tool call, for going back with them (`restore_files`)."""

    # -- reading ------------------------------------------------------------------------------

    def messages(self) -> list[Message]:
        """The current branch's messages, as the transcript shows them and the model sees them."""
        return list(self._agent.state.messages)

    def list_sessions(self) -> list[SessionInfo]:
        """The project's sessions, most recently active first."""
        return list_sessions(self._folders.project_root)

    async def tree(self) -> Tree:
        session = self._session("tree")
        async with self._lock:
            return await session.tree()

    async def status(self, branch: str | None = None) -> BranchStatus:
        session = self._session("status")
        async with self._lock:
            status = await session.status(branch)
        status.sandbox = self._agent.state.sandbox.label()
        return status

    async def diff(self, branch: str | None = None, path: str | None = None) -> str:
        """The unified diff of a branch's files since its fork (default: the current branch),
        only under `path` when given; empty when nothing changed."""
        session = self._session("diff")
        async with self._lock:
            return await session.diff(branch, path)

    # -- changing -----------------------------------------------------------------------------

    async def fork(self, name: str | None = None, at: str | None = None) -> ForkResult:
        """A new branch at the current position or at entry `at`; without a name, `fork-N`.
        Its worktree is checked out in the background (runs on it wait for that)."""
        session = self._session("fork")
        async with self._changing("fork"):
            branch = name or next(
                f"fork-{n}" for n in count(1) if f"fork-{n}" not in session.store.state.branches
            )
            return await session.fork(branch, at, defer_worktree=True)

    async def workspace_ready(self) -> Path:
        """The current branch's workspace once it is there (a fork's worktree is checked out in
        the background); raises when it cannot be made."""
        async with self._lock:
            await self._readiness.wait()
            return self._current.workspace

    async def navigate(
        self, target: str, summarize: bool = False, restore_files: bool = False
    ) -> NavigateResult:
        """Move to an entry (id, prefix or label); the next message there starts a new branch.
        With `summarize`, the model writes a goal-first summary of the path left behind; with
        `restore_files`, the files go back to what they were at that entry (refused, and
        nothing moves, when files changed outside the agent since its last snapshot)."""
        session = self._session("navigate")
        summarizer = self._summarize_left if summarize else None
        async with self._changing("navigate"):
            return await session.navigate(target, summarizer, restore_files)

    async def files_to_restore(self, target: str, question: bool = False) -> list[str]:
        """The files going to `target` with `restore_files` would change (with `question`:
        editing and resending that question would); raises `ChangedOutside` (naming the files
        changed outside the agent) when the restore would be refused."""
        session = self._session("navigate")
        async with self._lock:
            if not question:
                return await session.files_to_restore(target)
            parent = (await session.store.run(lambda: session.store.resolve(target))).parent
            return await session.files_to_restore(parent or target, target)

    async def edit_and_resend(
        self, target: str, restore_files: bool = False
    ) -> tuple[str, FilesRestored | None]:
        """Move to just before the question `target` and return its text, to be edited and
        asked again: the new answer starts a new branch, the old one stays where it was. With
        `restore_files`, the files go back to what they were when it was asked, and what that
        restored (and how to undo it) comes back too."""
        session = self._session("edit_and_resend")
        async with self._changing("navigate"):
            moved, text = await session.back_before(target, restore_files)
        return text, moved.files

    async def switch_branch(self, name: str) -> None:
        """Go to the head of branch `name`."""
        session = self._session("switch_branch")
        async with self._changing("switch"):
            await session.switch_branch(name)

    def commit_trailers(self) -> list[str]:
        """The git trailer lines `commit` appends for the current branch (`Workbench-Cost: $0.1234`,
        `Workbench-Tokens: 1200 in, 80 out, 9000 cache read, 500 cache write`: its figures since
        its fork), for a commit draft shown to the user; [] without a stored session."""
        return self._current.session.commit_trailers() if self._current.session is not None else []

    async def commit(self, message: str | None = None, branch: str | None = None) -> CommitResult:
        """Commit the files of `branch` (default: the current one; a sweep's run is committed
        from where the user is); without a message the model drafts it. The branch's cost and token
        trailers are appended unless the message already carries them."""
        session = self._session("commit")
        async with self._changing("commit"):
            return await session.commit(message, draft=self._draft_commit, branch=branch)

    async def draft_commit_message(self) -> str | None:
        """The model's draft of a commit message for the current branch's changes, for the user
        to edit before `commit`; None when there is nothing to commit."""
        return await self._session("commit").draft_commit_message(self._draft_commit)

    async def merge(
        self, branch: str | None, into: str | None = None, remove_worktree: bool | None = None
    ) -> MergeResult:
        """Merge `branch` (None: the current one) into its parent (or `into`), summarised by the
        model; a conflict raises `MergeConflict` (with `.files`) and changes nothing. The position
        moves to the parent."""
        session = self._session("merge")
        async with self._changing("merge"):
            return await session.merge(branch, into, self._summarize_merge, remove_worktree)

    async def label(self, text: str, target: str | None = None) -> Entry:
        """Label an entry (default: the current one)."""
        session = self._session("label")
        async with self._changing("label"):
            return await session.label(text, target)

    async def new_session(self) -> None:
        """Start a new, empty session (in memory when this one runs with `--no-session`)."""
        async with self._changing("new"):
            if self._current.session is None:
                await self._replace(None, MemoryStore())
            else:
                root, settings = self._folders.project_root, self._current.settings
                session = await asyncio.to_thread(Session.create, root, settings)
                await self._replace(session, session.store)

    async def resume(self, session_id: str) -> None:
        """Open another session of this project (by id or unique prefix) in place of this one."""
        if self._current.session is not None and self._current.session.id.startswith(session_id):
            return
        async with self._changing("resume"):
            root, settings = self._folders.project_root, self._current.settings
            session = await asyncio.to_thread(Session.open, root, session_id, None, False, settings)
            await self._replace(session, session.store)
            for notice in session.notices:
                self._emit(Notice(notice, "warning"))

    # -- following the session ----------------------------------------------------------------

    def _session(self, command: str) -> Session:
        if self._current.session is None:
            raise UsageError(
                f"{command} needs a stored session; this one runs with --no-session",
                "start workbench without --no-session to keep a conversation tree",
            )
        return self._current.session

    def _marker(self) -> Marker:
        store = self._current.store
        path = store.path()
        return (store.session_id, store.branch, path[-1].id if path else None)

    @asynccontextmanager
    async def _changing(self, reason: TreeChange) -> AsyncIterator[None]:
        """One tree change at a time, never during a run; the runtime follows whatever moved,
        even when the command failed half-way (a summary that could not be written)."""
        async with self._lock:
            if self._agent.busy:
                raise WorkbenchError(
                    "the agent is working; the conversation tree changes only between runs",
                    "wait until it finishes, or abort it first",
                )
            await self._readiness.settled()
            before = self._marker()
            try:
                yield
            finally:
                if reason == "label" or self._marker() != before:
                    await self._follow(reason)

    async def _replace(self, session: Session | None, store: ConversationStore) -> None:
        """Another session in place of this one: nothing of this one's goes with it (messages
        an extension or the enforcer held for the next turn belong to this session)."""
        current, old = self._current, self._current.store
        current.session, current.store, self._agent.state.store = session, store, store
        current.next_turn.clear()
        await asyncio.to_thread(old.close)

    async def _follow(self, reason: TreeChange) -> None:
        """Bring the agent, the enforcer and the tools to the store's current position."""
        self._agent.state.messages = branch_messages(self._current.store.path())
        self._branch = self._current.store.branch
        start = START_REASONS.get(reason)
        if start is not None:
            planned = self._current.cwd
            if self._current.session is not None:
                workspace = self._current.session.workspace(create=False)
                if workspace.is_dir() and not initializing(workspace):
                    self._use_workspace(workspace)  # there already: follow it now; the job
                    # still checks it (a half-made one is followed once it is made again)
                self._readiness.start(self._settle_workspace)
                planned = self._folders.tools_folder(workspace)
            if self._bus.has("session_start"):
                messages = [*self._agent.state.messages, *self._current.next_turn]
                await self._bus.run("session_start", SessionStartEvent(messages, planned, start))
        self._emit_tree_update(reason)

    async def _settle_workspace(self) -> None:
        assert self._current.session is not None
        self._use_workspace(await self._current.session.ready_workspace())

    def follow_new_branch(self) -> None:
        """After each agent event: the first append from a navigated-to entry that is not a
        branch head started a new branch, which the front ends are told of."""
        if self._current.store.branch != self._branch:
            self._branch = self._current.store.branch
            self._emit_tree_update("continue")

    def _emit_tree_update(self, reason: TreeChange) -> None:
        session = self._current.session
        entry = session.store.position_entry() if session else None
        self._emit(TreeUpdate(reason, self._current.store.branch, entry))

    # -- model-written text ---------------------------------------------------------------------

    async def _summarize_left(self, messages: list[Message]) -> str:
        return await self._agent.summarize(messages, LEFT_BEHIND_FOCUS)

    async def _summarize_merge(self, messages: list[Message]) -> str:
        return await self._agent.summarize(messages, MERGE_FOCUS) if messages else ""

    async def _draft_commit(self, prompt: str) -> str:
        request = ModelRequest(
            COMMIT_SYSTEM_PROMPT,
            [Message(role="user", text=prompt)],
            purpose="commit_message",
            max_tokens=COMMIT_MAX_TOKENS,
        )
        return await self._agent.complete_text(request)
