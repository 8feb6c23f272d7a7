"""Workbench: one object per open session, binding settings, skills, the session (its git-backed
conversation tree and workspaces), hooks, extensions, model and agent, and offering every
user-level command with ONE event stream.

Front ends (the TUI, `--mode print|json|rpc`, sub-agent parents) use only this API:

    wb = await Workbench.open(WorkbenchOptions(cwd=Path.cwd(), model="demo"))
    unsubscribe = wb.subscribe(on_event)      # every event: workbench.agent.events
    await wb.prompt("fix the failing test")   # starts a run (or runs a /command); returns at once
    await wb.steer("use pytest -x")           # now: skips the rest of the current tool calls
    await wb.follow_up("then update README")  # when the agent would stop
    await wb.abort()                          # cancels the stream / kills bash; turn recorded
    await wb.compact("keep the API notes")    # /compact [focus]
    await wb.set_model("openai/gpt-4.1")      # from the next model call on
    wb.state()                                # WorkbenchState: model, offline, busy, usage...
    await wb.wait_idle()                      # the run's stop reason
    await wb.close()
    wb.current (session, store, settings, folders), wb.agent.state, wb.skills, wb.enforcer ...

Its other commands are its parts' (`parts.handed_to`): the tree (`tree.py`: fork, navigate,
status, commit, merge...; each change emits `tree_update`), skills (`skill_controls.py`), queues
(`queue_controls.py`), trust, sharing, sweeps, MCP servers (`*_controls.py`) and approval.
`prompt` while the agent works raises WorkbenchError naming steer/follow_up; `steer` and
`follow_up` while idle start a run. Commands (`/compact`, extensions') are in `commands`; their
output is a `notice`. Stored in git (`opening.py`) unless a `store` is given (`--no-session`);
the tools run in the current branch's workspace, its files kept around each tool call
(`sessions.file_history`).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from pathlib import Path
from typing import Any

from workbench.agent.approval import ApprovalControls, opening_approval
from workbench.agent.context_files import context_files
from workbench.agent.events import AgentEvent, ErrorEvent, Notice
from workbench.agent.extensions import ExtensionReport, load_extensions
from workbench.agent.loop import Agent
from workbench.agent.models.client import ModelClient
from workbench.agent.queues import MessageQueue
from workbench.agent.store import ConversationStore, MemoryStore
from workbench.agent.subagents.settings import SubagentHost
from workbench.agent.subagents.tool import subagent_tools
from workbench.agent.system_prompt import build_system_prompt, working_folder
from workbench.agent.tools import builtin_tools
from workbench.agent.tools.allowlist import allowed_tools
from workbench.config import Settings, find_project_root
from workbench.enforcer.core import Enforcer
from workbench.enforcer.extension import register as register_enforcer
from workbench.errors import WorkbenchError
from workbench.extension_api import Command, DeliverAs, ExtensionAPI, ExtensionEvent
from workbench.hooks import BeforeAgentStartEvent, HookBus, InputEvent, SessionStartEvent
from workbench.messages import Message
from workbench.runtime.agent_settings import agent_config, bound_tools
from workbench.runtime.context import branch_messages
from workbench.runtime.current import Current
from workbench.runtime.eval_controls import EvalControls
from workbench.runtime.folders import ProjectFolders
from workbench.runtime.listeners import Listeners
from workbench.runtime.mcp_controls import McpControls
from workbench.runtime.model.model_controls import ModelControls
from workbench.runtime.model.session_model import open_session_model, reopen_model
from workbench.runtime.opening import open_session, resumes
from workbench.runtime.options import WorkbenchOptions, WorkbenchState
from workbench.runtime.parts import handed_to
from workbench.runtime.queue_controls import QueueControls
from workbench.runtime.readiness import Readiness
from workbench.runtime.share_controls import ShareControls
from workbench.runtime.skill_controls import SkillControls
from workbench.runtime.sweep_controls import SweepControls
from workbench.runtime.tree import ConversationTree, StartReason
from workbench.runtime.trust_controls import TrustControls
from workbench.sessions.session import Session
from workbench.skills.discover import SkillSet, load_project_skills
from workbench.skills.graph import SkillGraph
from workbench.trust import granted, project_settings

log = logging.getLogger(__name__)


class Workbench:
    """See the module docstring. Create with `await Workbench.open(options)`."""

    def __init__(
        self,
        options: WorkbenchOptions,
        settings: Settings,
        session: Session | None,
        store: ConversationStore,
    ):
        self.options = options
        self.project_root = settings.project_root.resolve()
        self.folders = ProjectFolders(self.project_root, options.cwd.resolve())
        workspace = self.project_root
        cwd = self.folders.tools_folder(workspace)
        self.current = Current(session, store, settings, workspace, cwd)
        self.listeners = Listeners()
        self.readiness = Readiness(self._workspace_failed)
        self._tree_lock = asyncio.Lock()
        self.bus = HookBus(on_error=self._hook_failed)
        self.api = ExtensionAPI(self.bus, self)
        compact = Command("compact", "summarise older history now", self._compact_command)
        self.commands: dict[str, Command] = {"compact": compact}
        self.extensions = ExtensionReport()
        self.enforcer: Enforcer
        self.system_prompt = ""
        """The stable system prompt (hooks extend it); `system_suffix` is the working folder."""
        self.system_suffix = ""
        self.agent: Agent
        self.conversation: ConversationTree
        self.skill_controls: SkillControls
        self.queue_controls: QueueControls
        self.trust_controls: TrustControls
        self.share_controls: ShareControls
        self.mcp = McpControls(options, settings, self.project_root)

    @classmethod
    async def open(cls, options: WorkbenchOptions) -> Workbench:
        cwd = options.cwd.resolve()
        settings = project_settings(find_project_root(cwd), granted(options.trust, cwd))
        session = await asyncio.to_thread(open_session, options, settings)
        store = session.store if session is not None else options.store or MemoryStore()
        workbench = cls(options, settings, session, store)
        try:
            await workbench._start()
        except BaseException:
            await asyncio.gather(workbench.mcp.close(), asyncio.to_thread(store.close))
            raise
        return workbench

    async def _start(self) -> None:
        current = self.current
        if current.session is not None:
            if current.session.location.project_is_git:
                await self.folders.find_prefix()
            current.workspace = await current.session.ready_workspace()
            current.cwd = self.folders.tools_folder(current.workspace)
        self.mcp.begin()  # the servers start while the rest gets ready
        skills = self.options.skills
        self.enforcer = register_enforcer(
            self.api,
            skills
            if skills is not None
            else lambda: load_project_skills(
                self.folders.project_folder(current.workspace), cwd=current.cwd
            ),
            current.settings,
            session_tools=lambda: list(self.agent.state.tools),
            cwd=current.cwd,
        )
        self.extensions = await load_extensions(
            self.api, self.project_root, current.settings.trusted
        )
        messages = branch_messages(current.store.path())
        pulled = current.session.store.state.remote if current.session is not None else ""
        model, model_notices = await reopen_model(self._open_model, self.options, messages, pulled)
        host = SubagentHost(self.options, lambda: self.agent.state.model.info.name)
        tools = [*builtin_tools(), *subagent_tools(host, current.cwd), *self.api.tools.values()]
        tools, wanted = await self.mcp.offered(tools, self.options.tools)
        self.agent = Agent(
            model=model,
            tools=allowed_tools(tools, wanted),
            store=current.store,
            emit=self._agent_event,
            cwd=current.cwd,
            bus=self.bus,
            config=agent_config(current.settings),
            on_queue_change=lambda: self.queue_controls.changed(),
        )
        self._hand_out_parts()
        worktrees = [current.session.workspaces.worktree_root] if current.session else []
        bounds = bound_tools(self.agent.state, current.settings, self.options, worktrees)
        self.agent.state.messages = messages
        self.skill_controls.offer_tools()
        self._refresh_system_prompt()
        self.commands.update(self.api.commands)
        if self.bus.has("session_start"):
            reason: StartReason = "resume" if resumes(self.options) else "start"
            messages = list(self.agent.state.messages)
            await self.bus.run("session_start", SessionStartEvent(messages, current.cwd, reason))
        session_notices = current.session.notices if current.session else []
        self.listeners.startup_notices = [
            *(Notice(text, "warning") for text in session_notices),
            *(Notice(text, "warning") for text in context_files(current.cwd).notices),
            *self.trust_controls.trust_notices(),
            *self.mcp.notices(),
            *model_notices,
            *(Notice(text, "warning") for text in bounds),
        ]

    def _hand_out_parts(self) -> None:
        """The parts the commands are handed to, each given what it uses (the agent first)."""
        current, emit, lock = self.current, self.listeners.emit, self._tree_lock
        self.conversation = ConversationTree(
            current,
            self.agent,
            self.bus,
            self.folders,
            self.readiness,
            lock,
            emit,
            self._use_workspace,
        )
        self.skill_controls = SkillControls(
            self.enforcer, self.agent, self.api, self.options.tools, emit, current
        )
        self.queue_controls = QueueControls(self.agent, current.next_turn, emit)
        self.model_controls = ModelControls(
            current, self.agent, self.options, self._open_model, emit
        )
        self.trust_controls = TrustControls(
            current,
            self.options,
            self.project_root,
            self.extensions,
            self.api,
            self.agent,
            self.commands,
            self.mcp,
            emit,
            self._refresh_system_prompt,
            self._open_model,
        )
        self.share_controls = ShareControls(current, self.project_root)
        self.agent.state.approval = opening_approval(self.options.approval, current.settings)
        self.approval_controls = ApprovalControls(self.agent.state.approval, emit)
        self.sweep_controls = SweepControls(current, self.options, emit, self.agent, lock)
        self.eval_controls = EvalControls(self.sweep_controls, self.options, self.agent)

    def _refresh_system_prompt(self) -> None:
        """Base prompt, tools, context files: rebuilt only when the tools change, so it stays
        byte-identical across turns; the working folder follows it as its suffix."""
        self.system_prompt = build_system_prompt(
            tools=list(self.agent.state.tools.values()),
            context_files=context_files(self.current.cwd).files,
            base=self.options.system_prompt,
            append=self.options.append_system_prompt,
        )
        self.agent.state.system_prompt = self.system_prompt
        self.system_suffix = self.agent.state.system_suffix = working_folder(self.current.cwd)

    def _use_workspace(self, workspace: Path) -> None:
        """Run the tools, and find and name the skills, in `workspace` (a branch's checkout or
        worktree): the enforcer must see the worktree's copies of the skill files."""
        if workspace == self.current.workspace:
            return
        self.current.workspace = workspace
        self.current.cwd = self.agent.state.cwd = self.folders.tools_folder(workspace)
        self._refresh_system_prompt()
        self.enforcer.move_to(self.current.cwd)

    def _workspace_failed(self, exc: BaseException) -> None:
        failed = "the branch's workspace is not ready"
        if isinstance(exc, WorkbenchError):
            self.listeners.emit(ErrorEvent(f"{failed}: {exc.message}", exc.hint))
        else:
            log.error("making the branch's workspace failed", exc_info=exc)
            self.listeners.emit(ErrorEvent(f"{failed}: {exc!r}", None))

    async def _open_model(self, requested: str | None, api_base: str | None = None) -> ModelClient:
        """See `session_model.open_session_model`."""
        skills = lambda: self.skills  # noqa: E731 - read when the model needs it
        return await open_session_model(self.current, self.options, skills, requested, api_base)

    # -- what the front ends read ---------------------------------------------------------

    @property
    def skills(self) -> SkillGraph:
        """The project's skill graph as the enforcer sees it (reloaded when files change)."""
        return self.enforcer.skills.graph

    @property
    def skill_set(self) -> SkillSet:
        """The skill set the enforcer works with (the branch's workspace's, reloaded on change)."""
        return self.enforcer.skills.skill_set

    @property
    def enforcer_mode(self) -> str:
        """`warn`, `block` or `off` (`enforcer.mode` in the settings; `set_enforcer_mode`)."""
        return self.enforcer.mode

    @property
    def needs_trust(self) -> bool:
        """Whether the project asks for something only trust gives (extensions, settings, MCP)."""
        return self.trust_controls.needs_trust

    # -- the parts' commands, offered as the workbench's own (see `parts.py`) ----------------

    subscribe = handed_to("listeners", Listeners.subscribe)
    unsubscribe = handed_to("listeners", Listeners.unsubscribe)
    messages = handed_to("conversation", ConversationTree.messages)
    list_sessions = handed_to("conversation", ConversationTree.list_sessions)
    tree = handed_to("conversation", ConversationTree.tree)
    status = handed_to("conversation", ConversationTree.status)
    diff = handed_to("conversation", ConversationTree.diff)
    fork = handed_to("conversation", ConversationTree.fork)
    workspace_ready = handed_to("conversation", ConversationTree.workspace_ready)
    navigate = handed_to("conversation", ConversationTree.navigate)
    files_to_restore = handed_to("conversation", ConversationTree.files_to_restore)
    edit_and_resend = handed_to("conversation", ConversationTree.edit_and_resend)
    switch_branch = handed_to("conversation", ConversationTree.switch_branch)
    commit_trailers = handed_to("conversation", ConversationTree.commit_trailers)
    commit = handed_to("conversation", ConversationTree.commit)
    draft_commit_message = handed_to("conversation", ConversationTree.draft_commit_message)
    merge = handed_to("conversation", ConversationTree.merge)
    label = handed_to("conversation", ConversationTree.label)
    new_session = handed_to("conversation", ConversationTree.new_session)
    set_enforcer_mode = handed_to("skill_controls", SkillControls.set_enforcer_mode)
    loading_state = handed_to("skill_controls", SkillControls.loading_state)
    skills_status = handed_to("skill_controls", SkillControls.skills_status)
    activate = handed_to("skill_controls", SkillControls.activate)
    deactivate = handed_to("skill_controls", SkillControls.deactivate)
    queues = handed_to("queue_controls", QueueControls.queues)
    edit_queued = handed_to("queue_controls", QueueControls.edit_queued)
    remove_queued = handed_to("queue_controls", QueueControls.remove_queued)
    last_queued = handed_to("queue_controls", QueueControls.last_queued)
    set_model = handed_to("model_controls", ModelControls.set_model)
    model_choices = handed_to("model_controls", ModelControls.model_choices)
    clear_queue = handed_to("queue_controls", QueueControls.clear_queue)
    trust_project = handed_to("trust_controls", TrustControls.trust_project)
    mcp_report = handed_to("mcp", McpControls.report)
    push = handed_to("share_controls", ShareControls.push)
    export = handed_to("share_controls", ShareControls.export)
    export_text = handed_to("share_controls", ShareControls.export_text)
    set_approval = handed_to("approval_controls", ApprovalControls.set_approval)
    cycle_approval = handed_to("approval_controls", ApprovalControls.cycle_approval)
    answer_permissions = handed_to("approval_controls", ApprovalControls.answer_with)
    sweep = handed_to("sweep_controls", SweepControls.sweep)
    stop_sweep = handed_to("sweep_controls", SweepControls.stop_sweep)
    eval = handed_to("eval_controls", EvalControls.eval)

    def deliver(self, message: Message, deliver_as: DeliverAs) -> None:
        """ExtensionSink: see `QueueControls.deliver`; until the agent is there (extensions load
        before it), an extension's message waits for the user's next prompt."""
        if hasattr(self, "queue_controls"):
            self.queue_controls.deliver(message, deliver_as)
        else:
            self.current.next_turn.append(message)

    def _agent_event(self, event: AgentEvent) -> None:
        self.listeners.emit(event)
        self.conversation.follow_new_branch()

    def emit(self, event: ExtensionEvent) -> None:
        """ExtensionSink: extensions publish their own events to every front end."""
        self.listeners.emit(event)

    def _hook_failed(self, hook: str, exc: BaseException) -> None:
        """`exc` is a `HookError`: it names the extension, the handler and what went wrong (a
        handler that raised is logged with its traceback; a wrong field value needs none)."""
        if exc.__cause__ is not None:
            log.error("hook %s failed", hook, exc_info=exc.__cause__)
        self.listeners.emit(Notice(str(exc), "warning"))

    # -- user commands ----------------------------------------------------------------------

    async def prompt(self, text: str) -> None:
        """Start a run with `text`, or run it as `/command args` when it names a command."""
        if self.agent.busy:
            raise WorkbenchError(
                "the agent is still working on the previous prompt",
                "use steer to redirect it now, or follow_up to queue a message for when it stops",
            )
        details: dict[str, Any] = {}
        if self.bus.has("input"):
            event = InputEvent(text)
            await self.bus.run("input", event)
            if event.handled:
                return
            text, details = event.text, event.details
        name, _, args = text.removeprefix("/").partition(" ")
        if text.startswith("/") and name in self.commands:
            await self.run_command(name, args.strip())
            return
        await self._start_run(Message(role="user", text=text, details=details))

    async def _start_run(self, message: Message) -> None:
        """Start the run once a tree change under way is done and its workspace is ready."""
        async with self._tree_lock:
            await self.readiness.wait()
            if self.enforcer.refresh_for_run() and self.skill_controls.offer_tools():
                self._refresh_system_prompt()
            start = BeforeAgentStartEvent(self.system_prompt, message.text)
            if self.bus.has("before_agent_start"):
                await self.bus.run("before_agent_start", start)
            pending = list(self.current.next_turn)
            self.current.next_turn.clear()
            self.agent.start([*pending, message, *start.messages], start.system_prompt)

    async def steer(self, text: str) -> None:
        """Interrupt: delivered after the running tool; the reply's other calls are skipped."""
        await self._queue_or_start(self.agent.steering, text)

    async def follow_up(self, text: str) -> None:
        """Queue a message for when the agent would stop."""
        await self._queue_or_start(self.agent.follow_ups, text)

    async def _queue_or_start(self, queue: MessageQueue, text: str) -> None:
        if not text.strip():
            raise WorkbenchError("the message is empty")
        if self.agent.busy:
            queue.push(Message(role="user", text=text))
        else:
            await self._start_run(Message(role="user", text=text))

    async def abort(self) -> None:
        """Stop the current run or compaction; queued messages stay queued."""
        await self.agent.abort()

    async def compact(self, focus: str | None = None) -> None:
        """Compact now (`/compact [focus]`); the outcome arrives as compaction events."""
        async with self._tree_lock:
            self.agent.start_compaction(focus or None)

    async def _compact_command(self, args: str) -> None:
        await self.compact(args or None)

    async def run_command(self, name: str, args: str = "") -> None:
        command = self.commands.get(name)
        if command is None:
            raise WorkbenchError(
                f"unknown command /{name}", f"commands: {', '.join(self.commands)}"
            )
        outcome: Any = command.handler(args)
        if inspect.isawaitable(outcome):
            outcome = await outcome
        if outcome:
            self.listeners.emit(Notice(str(outcome)))

    async def resume(self, session_id: str) -> None:
        """Open another session of this project in place of this one, with its model."""
        await self.conversation.resume(session_id)
        await self.model_controls.set_model(None)

    async def wait_idle(self) -> str | None:
        return await self.agent.wait()

    def state(self) -> WorkbenchState:
        state = self.current, self.agent, sorted(self.commands), self.extensions
        return WorkbenchState.of(*state, self.mcp.report().to_json())

    async def close(self) -> None:
        """Abort the run, then finish the session's writes and release its lock."""
        await asyncio.gather(self.abort(), self.stop_sweep())
        self.readiness.cancel()
        await asyncio.gather(self.mcp.close(), asyncio.to_thread(self.current.store.close))
