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
    wb.queues(); wb.edit_queued("steering", 0, "..."); wb.remove_queued(...); wb.clear_queue()
    await wb.set_model("openai/gpt-4.1")      # from the next model call on
    wb.state()                                # WorkbenchState: model, offline, busy, usage...
    await wb.wait_idle()                      # the run's stop reason
    await wb.trust_project()                  # record trust: the project's extensions, settings
    await wb.close()
    wb.skills, wb.enforcer, wb.commands, wb.system_prompt, wb.store, wb.bus, wb.api, wb.session

The conversation tree (`tree.py`): tree, fork, navigate, switch_branch, status, diff, commit,
merge, label, list_sessions, new_session, resume, messages; each change emits `tree_update`. Skills
(`skill_controls.py`): activate, deactivate, skills_status, skill_set, enforcer_mode,
loading_state. Queues (`queue_controls.py`): queues, edit_queued, remove_queued, clear_queue,
deliver. Trust (`trust_controls.py`): needs_trust, trust_project. Sharing (`share_controls.py`):
push, export, export_text. Options and state: `options.py`.

`prompt` while the agent works raises WorkbenchError naming steer/follow_up. `steer` and
`follow_up` while idle start a run, like `prompt`. A new subscriber first receives the start-up
notices (the session's, extensions skipped or broken). Commands (`/compact`, extension commands)
are in `commands`; a command's text output arrives as a `notice` event.

The session is stored in git by default (`workbench.sessions`): a new one, or the one named by
`session_id` / `continue_session` / `branch`; a given `store` (`--no-session`: a `MemoryStore`)
replaces it. The tools run in the current branch's workspace: the project checkout, or a fork's
worktree.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from workbench.agent.context_files import context_files
from workbench.agent.events import AgentEvent, ErrorEvent, ModelChange, Notice
from workbench.agent.extensions import ExtensionReport, load_extensions
from workbench.agent.loop import Agent
from workbench.agent.models.catalog import ModelChoice, model_choices
from workbench.agent.models.choice import cache_policy, model_name, open_model
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
from workbench.extension_api import Command, ExtensionAPI, ExtensionEvent
from workbench.hooks import BeforeAgentStartEvent, HookBus, InputEvent, SessionStartEvent
from workbench.messages import Message
from workbench.runtime.agent_settings import agent_config
from workbench.runtime.context import branch_messages
from workbench.runtime.events import WorkbenchEvent
from workbench.runtime.opening import open_session, resumes
from workbench.runtime.options import WorkbenchOptions, WorkbenchState
from workbench.runtime.queue_controls import QueueControls
from workbench.runtime.readiness import Readiness
from workbench.runtime.session_model import model_to_reopen, recorded_models
from workbench.runtime.share_controls import ShareControls
from workbench.runtime.skill_controls import SkillControls
from workbench.runtime.tree import ConversationTree
from workbench.runtime.trust_controls import TrustControls
from workbench.sessions.session import Session
from workbench.sessions.store.gitcmd import GitRunner
from workbench.skills.discover import load_project_skills
from workbench.skills.graph import SkillGraph
from workbench.trust import granted, project_settings

log = logging.getLogger(__name__)
Listener = Callable[[WorkbenchEvent], None]
"""Receives each event: a `workbench.agent.events.Event`, or an extension's own event dataclass
(serialise either with `event_dict`)."""


class Workbench(ConversationTree, SkillControls, QueueControls, TrustControls, ShareControls):
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
        self.settings = settings
        self.session = session
        self.store = store
        start = options.cwd.resolve()
        self._subfolder = (
            start.relative_to(self.project_root)
            if start.is_relative_to(self.project_root)
            else Path()
        )
        self._prefix = Path()
        """Where the project lies in its git repository: a fork's worktree holds all of it."""
        self.workspace = self.project_root
        """The current branch's checkout or worktree."""
        self.cwd = self._tools_folder(self.workspace)
        """Where the tools run: the folder workbench was started in, inside `workspace`."""
        self.readiness = Readiness(self._workspace_failed)
        self._tree_lock = asyncio.Lock()
        self._branch = store.branch
        self.bus = HookBus(on_error=self._hook_failed)
        self.api = ExtensionAPI(self.bus, self)
        self.commands: dict[str, Command] = {
            "compact": Command("compact", "summarise older history now", self._compact_command)
        }
        self.extensions = ExtensionReport()
        self.enforcer: Enforcer
        self.system_prompt = ""
        """The stable system prompt (hooks extend it); `system_suffix` is the working folder."""
        self.system_suffix = ""
        self._listeners: list[Listener] = []
        self.startup_notices: list[Notice] = []
        self._next_turn: list[Message] = []
        self.agent: Agent

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
            await asyncio.to_thread(store.close)
            raise
        return workbench

    async def _start(self) -> None:
        if self.session is not None:
            if self.session.location.project_is_git:
                git = GitRunner(self.project_root)
                self._prefix = Path(await asyncio.to_thread(git.run, "rev-parse", "--show-prefix"))
            self.workspace = await self.session.ready_workspace()
            self.cwd = self._tools_folder(self.workspace)
        skills = self.options.skills
        self.enforcer = register_enforcer(
            self.api,
            skills
            if skills is not None
            else lambda: load_project_skills(self._project_folder(self.workspace), cwd=self.cwd),
            self.settings,
            session_tools=lambda: list(self.agent.tools),
            cwd=self.cwd,
        )
        self.extensions = await load_extensions(self.api, self.project_root, self.settings.trusted)
        messages = branch_messages(self.store.path())
        model, model_notices = await self._reopen_model(messages)
        host = SubagentHost(self.options, lambda: self.agent.model.info.name)
        tools = [*builtin_tools(), *subagent_tools(host, self.cwd), *self.api.tools.values()]
        self.agent = Agent(
            model=model,
            tools=allowed_tools(tools, self.options.tools),
            store=self.store,
            emit=self._agent_event,
            cwd=self.cwd,
            bus=self.bus,
            config=agent_config(self.settings),
            on_queue_change=self._queues_changed,
        )
        if self.options.confine_tools or self.settings.get("tools.confine") is True:
            worktrees = [self.session.workspaces.worktree_root] if self.session else []
            self.agent.confined_to = tuple(p.resolve() for p in (self.project_root, *worktrees))
        self.agent.messages = messages
        self._offer_skill_tools()
        self._refresh_system_prompt()
        self.commands.update(self.api.commands)
        if self.bus.has("session_start"):
            messages, resumed = list(self.agent.messages), resumes(self.options)
            event = SessionStartEvent(messages, self.cwd, "resume" if resumed else "start")
            await self.bus.run("session_start", event)
        self.startup_notices = [
            *(Notice(text, "warning") for text in (self.session.notices if self.session else [])),
            *(Notice(text, "warning") for text in context_files(self.cwd).notices),
            *self.trust_notices(),
            *model_notices,
        ]

    def _refresh_system_prompt(self) -> None:
        """Base prompt, tools, context files: rebuilt only when the tools change, so it stays
        byte-identical across turns; the working folder follows it as its suffix."""
        self.system_prompt = build_system_prompt(
            tools=list(self.agent.tools.values()),
            context_files=context_files(self.cwd).files,
            base=self.options.system_prompt,
            append=self.options.append_system_prompt,
        )
        self.agent.system_prompt = self.system_prompt
        self.system_suffix = self.agent.system_suffix = working_folder(self.cwd)

    def _project_folder(self, workspace: Path) -> Path:
        """The project's folder in `workspace` (its skills and settings are there)."""
        folder = workspace if workspace == self.project_root else workspace / self._prefix
        return folder if folder.is_dir() else workspace

    def _tools_folder(self, workspace: Path) -> Path:
        """The folder workbench was started in, as found in `workspace` (else the project's)."""
        project = self._project_folder(workspace)
        folder = project / self._subfolder
        return folder if folder.is_dir() else project

    def _use_workspace(self, workspace: Path) -> None:
        """Run the tools, and find and name the skills, in `workspace` (a branch's checkout or
        worktree): the enforcer must see the worktree's copies of the skill files."""
        if workspace == self.workspace:
            return
        self.workspace = workspace
        self.cwd = self.agent.cwd = self._tools_folder(workspace)
        self._refresh_system_prompt()
        self.enforcer.move_to(self.cwd)

    def _workspace_failed(self, exc: BaseException) -> None:
        if isinstance(exc, WorkbenchError):
            self._emit(ErrorEvent(f"the branch's workspace is not ready: {exc.message}", exc.hint))
        else:
            log.error("making the branch's workspace failed", exc_info=exc)
            self._emit(ErrorEvent(f"the branch's workspace is not ready: {exc!r}", None))

    async def _reopen_model(self, messages: list[Message]) -> tuple[ModelClient, list[Notice]]:
        """The model the branch's replies were written by (see `session_model`), else the one a
        new session would use, with a notice saying why the recorded one could not open."""
        pulled = self.session.store.state.remote if self.session is not None else ""
        recorded = await model_to_reopen(self.options, messages, pulled, self.options.confirm)
        if recorded is None:
            return await self._open_model(self.options.model), []
        try:
            return await self._open_model(recorded.name, recorded.api_base), []
        except WorkbenchError as exc:
            notice = Notice(
                f"the session's model {recorded.name} did not open ({exc.message}); "
                "using the default model instead (/model chooses another)",
                "warning",
            )
            return await self._open_model(None), [notice]

    async def _open_model(self, requested: str | None, api_base: str | None = None) -> ModelClient:
        """Scripts (`scripted:PATH`) are named relative to the folder workbench started in;
        `api_base` (a recorded endpoint) stands in for `--api-base` when this run gave none."""
        name = model_name(requested, self.settings, os.environ)
        return await asyncio.to_thread(
            open_model,
            name,
            self.settings,
            self.options.cwd.resolve(),
            lambda: self.skills,
            self.options.api_base or api_base,
            self.options.api_key,
            lambda: self.cwd,
            cache_policy(self.settings, self.options.no_cache),
        )

    # -- events -----------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Receive every event from now on, starting with the start-up notices (the session's,
        extensions skipped or broken); returns the function that unsubscribes."""
        for notice in self.startup_notices:
            listener(notice)
        self._listeners.append(listener)
        return lambda: self.unsubscribe(listener)

    def unsubscribe(self, listener: Listener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    @property
    def skills(self) -> SkillGraph:
        """The project's skill graph as the enforcer sees it (reloaded when files change)."""
        return self.enforcer.skills.graph

    def _emit(self, event: WorkbenchEvent) -> None:
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:  # a broken front end must not stop the agent
                log.exception("event listener failed on %s", event.type)

    def _agent_event(self, event: AgentEvent) -> None:
        self._emit(event)
        if self.store.branch != self._branch:  # an append from a navigated-to entry branched
            self._branch = self.store.branch
            self._emit_tree_update("continue")

    def emit(self, event: ExtensionEvent) -> None:
        """ExtensionSink: extensions publish their own events to every front end."""
        self._emit(event)

    def _hook_failed(self, hook: str, exc: BaseException) -> None:
        """`exc` is a `HookError`: it names the extension, the handler and what went wrong (a
        handler that raised is logged with its traceback; a wrong field value needs none)."""
        if exc.__cause__ is not None:
            log.error("hook %s failed", hook, exc_info=exc.__cause__)
        self._emit(Notice(str(exc), "warning"))

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
            if self.enforcer.refresh() and self._offer_skill_tools():
                self._refresh_system_prompt()
            start = BeforeAgentStartEvent(self.system_prompt, message.text)
            if self.bus.has("before_agent_start"):
                await self.bus.run("before_agent_start", start)
            pending, self._next_turn = self._next_turn, []
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
            self._emit(Notice(str(outcome)))

    async def set_model(self, name: str) -> None:
        """Switch models; a run in progress uses the new one from its next model call."""
        self.agent.model = await self._open_model(name)
        info = self.agent.model.info
        self._emit(ModelChange(info.name, info.offline, info.context_window))

    def model_choices(self) -> list[ModelChoice]:
        """What `/model` offers: this branch's recent models, the configured, the known ones."""
        recent = [model.name for model in recorded_models(self.agent.messages)]
        return model_choices(recent, self.settings, os.environ)

    async def wait_idle(self) -> str | None:
        return await self.agent.wait()

    def state(self) -> WorkbenchState:
        info = self.agent.model.info
        return WorkbenchState(
            session_id=self.store.session_id,
            branch=self.store.branch,
            cwd=str(self.cwd),
            model=info.name,
            offline=info.offline,
            busy=self.agent.busy,
            context_tokens=self.agent.context_tokens(),
            context_window=info.context_window,
            steering=self.agent.steering.texts(),
            follow_up=self.agent.follow_ups.texts(),
            message_count=len(self.agent.messages),
            tools=list(self.agent.tools),
            commands=sorted(self.commands),
            extensions={
                "loaded": [str(p) for p in self.extensions.loaded],
                "skipped": [[str(p), r] for p, r in self.extensions.skipped],
                "failed": [[str(p), e] for p, e in self.extensions.failed],
            },
            **WorkbenchState.usage_fields(self.agent.totals(), self.agent.last_call()),
        )

    async def close(self) -> None:
        """Abort the run, then finish the session's writes and release its lock."""
        await self.abort()
        self.readiness.cancel()
        await asyncio.to_thread(self.store.close)
