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
    await wb.trust_project()                  # record trust, load the project's extensions
    await wb.close()
    wb.skills, wb.enforcer, wb.commands, wb.system_prompt, wb.store, wb.bus, wb.api, wb.session

The conversation tree (`tree.py`): tree, fork, navigate, switch_branch, status, diff, commit,
merge, label, list_sessions, new_session, resume, messages; each change emits `tree_update`. Skills
(`skill_controls.py`): activate, deactivate, skills_status, skill_set, enforcer_mode,
loading_state.

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
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from workbench.agent.compaction import CompactionSettings
from workbench.agent.context_files import context_files
from workbench.agent.events import ErrorEvent, ModelChange, Notice, QueueUpdate
from workbench.agent.extensions import ExtensionReport, TrustStore, load_extensions
from workbench.agent.loop import Agent, AgentConfig, RetryPolicy
from workbench.agent.models.choice import model_name, open_model
from workbench.agent.models.client import ModelClient
from workbench.agent.queues import MessageQueue, queue_mode
from workbench.agent.store import ConversationStore, MemoryStore
from workbench.agent.subagents.settings import Confirm, SubagentHost
from workbench.agent.subagents.tool import subagent_tools
from workbench.agent.system_prompt import build_system_prompt
from workbench.agent.tools import builtin_tools
from workbench.agent.tools.allowlist import allowed_tools, offered_tools
from workbench.config import Settings, find_project_root
from workbench.enforcer.core import Enforcer
from workbench.enforcer.extension import register as register_enforcer
from workbench.errors import WorkbenchError
from workbench.extension_api import Command, DeliverAs, ExtensionAPI
from workbench.hooks import BeforeAgentStartEvent, HookBus, InputEvent, SessionStartEvent
from workbench.messages import Message
from workbench.runtime.context import branch_messages
from workbench.runtime.opening import open_session, resumes
from workbench.runtime.readiness import Readiness
from workbench.runtime.skill_controls import SkillControls
from workbench.runtime.tree import ConversationTree
from workbench.sessions.gitcmd import GitRunner
from workbench.sessions.session import Session
from workbench.skills.discover import load_project_skills
from workbench.skills.graph import SkillGraph

log = logging.getLogger(__name__)
Listener = Callable[[Any], None]
"""Receives each event: a `workbench.agent.events.Event`, or an extension's own event dataclass
(serialise either with `event_dict`)."""
QueueName = Literal["steering", "follow_up"]


@dataclass
class WorkbenchOptions:
    """What a front end decides when it opens a session (CLI flags map one to one)."""

    cwd: Path
    model: str | None = None
    api_base: str | None = None
    api_key: str | None = None
    tools: list[str] | None = None
    system_prompt: str | None = None
    append_system_prompt: str | None = None
    trust: bool = False
    store: ConversationStore | None = None
    """Where finished messages go (`--no-session`: a `MemoryStore`); None: a stored session."""
    session_id: str | None = None
    """Resume this session (an id or unique prefix; `--session`)."""
    continue_session: bool = False
    """Resume the project's most recently active session (`--continue`)."""
    branch: str | None = None
    """Resume on this branch (`--branch`); alone, it resumes the most recent session."""
    skills: SkillGraph | None = None
    """A fixed skill graph (tests); None discovers the project's and reloads it on change."""
    confirm: Confirm | None = None
    """Asks the user yes or no (title, message), e.g. before project sub-agents run."""


@dataclass
class WorkbenchState:
    """A snapshot for status bars and `get_state`."""

    session_id: str
    branch: str
    cwd: str
    model: str
    offline: bool
    busy: bool
    context_tokens: int
    context_window: int
    total_cost: float | None
    steering: list[str]
    follow_up: list[str]
    message_count: int
    tools: list[str]
    commands: list[str]
    extensions: dict[str, list[Any]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def agent_config(settings: Settings) -> AgentConfig:
    """The loop's settings: `queue.*`, `retry.*`, `compaction.*` (see README, ## Agent)."""
    try:
        return AgentConfig(
            steering_mode=queue_mode(
                settings.get("queue.steering_mode", "one-at-a-time"), "queue.steering_mode"
            ),
            follow_up_mode=queue_mode(
                settings.get("queue.follow_up_mode", "one-at-a-time"), "queue.follow_up_mode"
            ),
            retry=RetryPolicy(
                max_retries=int(settings.get("retry.max_retries", 3)),
                base_delay_s=float(settings.get("retry.base_delay_ms", 1000)) / 1000,
                max_delay_s=float(settings.get("retry.max_delay_ms", 60000)) / 1000,
            ),
            compaction=CompactionSettings(
                enabled=bool(settings.get("compaction.enabled", True)),
                reserve_tokens=int(settings.get("compaction.reserve_tokens", 16_384)),
                keep_recent_tokens=int(settings.get("compaction.keep_recent_tokens", 20_000)),
            ),
        )
    except (TypeError, ValueError) as exc:
        raise WorkbenchError(
            f"a retry or compaction setting is not a number: {exc}", "see README, ## Agent"
        ) from exc


class Workbench(ConversationTree, SkillControls):
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
        self._listeners: list[Listener] = []
        self.startup_notices: list[Notice] = []
        self._next_turn: list[Message] = []
        self.agent: Agent

    @classmethod
    async def open(cls, options: WorkbenchOptions) -> Workbench:
        cwd = options.cwd.resolve()
        settings = Settings.load(find_project_root(cwd))
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
            else lambda: load_project_skills(self._project_folder(self.workspace)),
            self.settings,
            session_tools=lambda: list(self.agent.tools),
            cwd=self.cwd,
        )
        trusted = self.options.trust or TrustStore().is_trusted(self.project_root)
        self.extensions = await load_extensions(self.api, self.project_root, trusted)
        model = await self._open_model(self.options.model)
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
        self.agent.messages = branch_messages(self.store.path())
        self._refresh_system_prompt()
        self.commands.update(self.api.commands)
        if self.bus.has("session_start"):
            reason = "resume" if resumes(self.options) else "start"
            messages = list(self.agent.messages)
            await self.bus.run("session_start", SessionStartEvent(messages, self.cwd, reason))
        self.startup_notices = [
            *(Notice(text, "warning") for text in (self.session.notices if self.session else [])),
            *(
                Notice(f"extension {p} skipped: {why}", "warning")
                for p, why in self.extensions.skipped
            ),
            *(
                Notice(f"extension {p} failed to load: {e}", "warning")
                for p, e in self.extensions.failed
            ),
        ]

    def _refresh_system_prompt(self) -> None:
        """Base prompt, tools, context files, working folder: rebuilt only when the tools change,
        so it stays byte-identical across turns."""
        self.system_prompt = build_system_prompt(
            cwd=self.cwd,
            tools=list(self.agent.tools.values()),
            context_files=context_files(self.cwd),
            base=self.options.system_prompt,
            append=self.options.append_system_prompt,
        )
        self.agent.system_prompt = self.system_prompt

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

    async def _open_model(self, requested: str | None) -> ModelClient:
        """Scripts (`scripted:PATH`) are named relative to the folder workbench started in."""
        name = model_name(requested, self.settings, os.environ)
        return await asyncio.to_thread(
            open_model,
            name,
            self.settings,
            self.options.cwd.resolve(),
            lambda: self.skills,
            self.options.api_base,
            self.options.api_key,
            lambda: self.cwd,
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

    def _emit(self, event: Any) -> None:
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:  # a broken front end must not stop the agent
                log.exception("event listener failed on %s", event.type)

    def _agent_event(self, event: Any) -> None:
        self._emit(event)
        if self.store.branch != self._branch:  # an append from a navigated-to entry branched
            self._branch = self.store.branch
            self._emit_tree_update("continue")

    def emit(self, event: Any) -> None:
        """ExtensionSink: extensions publish their own events to every front end."""
        self._emit(event)

    def _hook_failed(self, hook: str, exc: BaseException) -> None:
        """`exc` is a `HookError`: it names the extension, the handler and what went wrong (a
        handler that raised is logged with its traceback; a wrong field value needs none)."""
        if exc.__cause__ is not None:
            log.error("hook %s failed", hook, exc_info=exc.__cause__)
        self._emit(Notice(str(exc), "warning"))

    def _queues_changed(self) -> None:
        self._emit(QueueUpdate(self.agent.steering.texts(), self.agent.follow_ups.texts()))

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

    def queues(self) -> dict[str, list[str]]:
        return {"steering": self.agent.steering.texts(), "follow_up": self.agent.follow_ups.texts()}

    def _queue(self, name: QueueName) -> MessageQueue:
        if name not in ("steering", "follow_up"):
            raise WorkbenchError(f"no queue named {name!r}", "queues: steering, follow_up")
        return self.agent.steering if name == "steering" else self.agent.follow_ups

    def edit_queued(self, name: QueueName, index: int, text: str) -> None:
        self._queue(name).edit(index, text)

    def remove_queued(self, name: QueueName, index: int) -> None:
        self._queue(name).remove(index)

    def clear_queue(self, name: QueueName | None = None) -> None:
        for queue in (self._queue(name),) if name else (self.agent.steering, self.agent.follow_ups):
            queue.clear()

    async def set_model(self, name: str) -> None:
        """Switch models; a run in progress uses the new one from its next model call."""
        self.agent.model = await self._open_model(name)
        info = self.agent.model.info
        self._emit(ModelChange(info.name, info.offline, info.context_window))

    async def wait_idle(self) -> str | None:
        return await self.agent.wait()

    async def trust_project(self) -> ExtensionReport:
        """Record that the user trusts this project and load its extensions now."""
        TrustStore().trust(self.project_root)
        if not self.extensions.skipped:
            return ExtensionReport()
        self.extensions.skipped = []
        report = await load_extensions(self.api, self.project_root, True, include_user=False)
        self.extensions.loaded += report.loaded
        self.extensions.failed += report.failed
        for path, error in report.failed:
            self._emit(Notice(f"extension {path} failed to load: {error}", "warning"))
        offered = offered_tools(self.api.tools.values(), self.options.tools)
        self.agent.tools.update((tool.name, tool) for tool in offered)
        self._refresh_system_prompt()
        self.commands.update(self.api.commands)
        return report

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
            total_cost=self.agent.total_cost(),
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
        )

    # -- ExtensionSink ----------------------------------------------------------------------

    def deliver(self, message: Message, deliver_as: DeliverAs) -> None:
        """Messages from extensions: steering and follow-ups while the agent works; otherwise
        (and for `next_turn`) they go with the user's next prompt."""
        busy = hasattr(self, "agent") and self.agent.busy
        if deliver_as == "steer" and busy:
            self.agent.steering.push(message)
        elif deliver_as == "follow_up" and busy:
            self.agent.follow_ups.push(message)
        else:
            self._next_turn.append(message)

    async def close(self) -> None:
        """Abort the run, then finish the session's writes and release its lock."""
        await self.abort()
        self.readiness.cancel()
        await asyncio.to_thread(self.store.close)
