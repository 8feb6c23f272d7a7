"""One open workbench session seen from ACP: a `Bench` (the `Workbench`, its event stream turned
into updates) and the ACP sessions on it (`AcpSession`: the session itself, and each fork made
with `session/fork`, each pinned to its conversation branch).

A stored session can be open only once (its lock), so the forks of a session share its
`Workbench`: the branch of the ACP session that acts is switched to first (a real
`switch_branch`, which also moves the tools to that branch's worktree). One run at a time per
stored session: a prompt to a fork while another branch works is refused, not queued.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

from acp import (
    RequestError,
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_plan,
    update_tool_call,
)
from acp.helpers import update_available_commands, update_current_mode
from acp.schema import (
    AllowedOutcome,
    ConfigOptionUpdate,
    PermissionOption,
    SessionConfigOptionSelect,
    StopReason,
    ToolCallUpdate,
)

from workbench.agent.events import ModelChange, ToolExecutionEnd, TreeUpdate
from workbench.errors import WorkbenchError
from workbench.modes import acp_commands, acp_open
from workbench.modes.acp_updates import Translator, plan
from workbench.permission import ALLOW, REJECT, OptionKind, PermissionRequest
from workbench.permission import PermissionOption as Option
from workbench.runtime import Workbench
from workbench.runtime.commands import AnyCommand
from workbench.runtime.events import WorkbenchEvent

log = logging.getLogger(__name__)
TRUST_QUESTION = (
    "This project asks for what only trust gives: {what}. Its extensions are code from the "
    "repository. Trust it (remembered for this folder)?"
)


class Outbox:
    """`session/update` notifications, sent in the order they were made by one sender task;
    `flush` waits until everything made so far is written (before a response that ends it)."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self._queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self._sender: asyncio.Task[None] | None = None

    def send(self, session_id: str, update: Any) -> None:
        if self._sender is None:
            self._sender = asyncio.get_running_loop().create_task(self._send_all())
        self._queue.put_nowait((session_id, update))

    async def _send_all(self) -> None:
        while True:
            session_id, update = await self._queue.get()
            try:
                await self.conn.session_update(session_id, update)
            except ConnectionError:
                pass  # the connection has closed (the editor quit): no one is left to tell
            except Exception:
                log.exception("session/update to %s failed", session_id)
            finally:
                self._queue.task_done()

    async def flush(self) -> None:
        await self._queue.join()


@dataclass(eq=False)
class AcpSession:
    """An ACP session: `id` is `ID@BRANCH`, the stored session and the branch it was opened on
    (a plain `ID`, loaded by hand, opens the session where it stands). `branch` is where it is
    now: a `/fork` typed in it moves it on to the new branch, as in the app."""

    id: str
    bench: Bench
    branch: str


class Bench:
    def __init__(self, workbench: Workbench, outbox: Outbox) -> None:
        self.wb = workbench
        self.outbox = outbox
        self.translator = Translator()
        self.active: AcpSession | None = None
        """The ACP session whose branch the workbench is on: events go there."""
        self.running: AcpSession | None = None
        self.cancelled = False
        self._plan: list[Any] | None = None
        self._asked = 0
        self.trust_asked = False
        self._held: list[Any] | None = []
        """Updates made before the first session's response (start-up notices)."""

    # -- events -----------------------------------------------------------------------------

    def on_event(self, event: WorkbenchEvent) -> None:
        session = self.active
        if isinstance(event, TreeUpdate) and session is not None:
            session.branch = event.branch
        updates = self.translator.updates(event, self.wb.current.cwd)
        if isinstance(event, ModelChange):
            updates.append(
                ConfigOptionUpdate(
                    session_update="config_option_update", config_options=self.config_options()
                )
            )
        for update in updates:
            self.send(update)
        if isinstance(event, (ToolExecutionEnd, TreeUpdate)) or getattr(event, "type", "") in (
            "skill_load",
            "agent_end",
        ):
            self.send_plan()

    def send(self, update: Any) -> None:
        if self._held is not None or self.active is None:
            if self._held is not None:
                self._held.append(update)
            return
        self.outbox.send(self.active.id, update)

    def send_plan(self) -> None:
        """The branch's skills as the session plan, when they changed (an empty plan only when
        skills were shown before: an editor need not show an empty plan for a skill-less
        project)."""
        entries = plan(self.wb.loading_state(), self.wb.skills)
        if entries == self._plan:
            return
        if entries or self._plan:
            self.send(update_plan(entries))
        self._plan = entries

    def release(self, session: AcpSession, notes: list[str]) -> None:
        """After a session's response: its commands, anything held, notes, the plan."""
        self.active = session
        held, self._held = self._held or [], None
        self.send(update_available_commands(acp_commands.advertised(self.wb)))
        for update in held:
            self.send(update)
        for note in notes:
            self.send(update_agent_message_text(note))
        self._plan = None
        self.send_plan()

    # -- what a session offers --------------------------------------------------------------

    def config_options(self) -> list[Any]:
        options = acp_open.config_options(self.wb.state().model)
        return [SessionConfigOptionSelect.model_validate(option) for option in options]

    async def set_mode(self, mode: str) -> None:
        try:
            self.wb.set_enforcer_mode(mode)
        except WorkbenchError as exc:
            raise RequestError.invalid_params({"message": exc.message, "hint": exc.hint}) from exc
        self.send(update_current_mode(mode))

    # -- questions for the user -------------------------------------------------------------

    async def ask(self, title: str, text: str, allow: str = "Allow", always: bool = False) -> bool:
        """A yes/no question (`WorkbenchOptions.confirm`), asked as a permission request."""
        kind: OptionKind = "allow_always" if always else "allow_once"
        options = (Option(ALLOW, "y", allow, kind), Option(REJECT, "n", "Reject", "reject_once"))
        request = PermissionRequest("question", "", title, text, options)
        return await self.request_permission(request) == ALLOW

    async def request_permission(self, request: PermissionRequest) -> str:
        """The session's `Asker`: the client answers `session/request_permission` on the tool
        call the request belongs to (the running one), or on a tool call of its own that shows
        the question. A file change carries the file's whole text before and after, so that the
        editor draws its own diff; the answer is the chosen option's id."""
        session = self.active
        if session is None:
            return REJECT
        call = request.tool_call_id or self.translator.running_tool()
        own = call is None
        body: list[Any] = [tool_content(text_block(request.detail or request.title))]
        if request.path is not None and request.new_text is not None:
            body = [tool_diff_content(request.path, request.new_text, request.old_text or None)]
        if own:
            self._asked += 1
            call = f"question-{self._asked}"
            self.send(
                start_tool_call(call, request.title, kind="other", status="pending", content=body)
            )
        assert call is not None
        await self.outbox.flush()
        options = [
            PermissionOption(option_id=o.id, name=o.label, kind=o.kind) for o in request.options
        ]
        question = ToolCallUpdate(tool_call_id=call, title=request.title, content=body)
        chosen = REJECT
        try:
            answer = await self.outbox.conn.request_permission(
                session_id=session.id, tool_call=question, options=options
            )
            if isinstance(answer.outcome, AllowedOutcome):
                chosen = request.option(answer.outcome.option_id).id
        finally:
            if own:
                allowed = chosen != REJECT
                self.send(update_tool_call(call, status="completed" if allowed else "failed"))
        return chosen

    async def trust_if_asked(self) -> None:
        """Once per session: a project whose extensions or settings wait for trust is offered
        it before the first run (the app asks in a dialog)."""
        if self.trust_asked or not self.wb.needs_trust:
            return
        self.trust_asked = True
        what = [f"extension {p.name}" for p, _ in self.wb.extensions.skipped]
        what += [f"setting {key}" for key in self.wb.current.settings.withheld]
        if await self.ask(
            "Trust this project?",
            TRUST_QUESTION.format(what=", ".join(what)),
            "Trust it",
            always=True,
        ):
            await self.wb.trust_project()
            self.send(update_available_commands(acp_commands.advertised(self.wb)))

    # -- turns ----------------------------------------------------------------------------

    async def activate(self, session: AcpSession) -> None:
        """Put the workbench on `session`'s branch (events go to it from now on)."""
        self.active = session
        if self.wb.state().branch != session.branch:
            branch = session.branch
            await self.wb.switch_branch(branch)
            session.branch = branch

    async def prompt(self, session: AcpSession, text: str) -> StopReason:
        """Run `text` (a command, or a prompt for the model) and return the ACP stop reason.
        While a run works it is steering, and ends with that run."""
        if self.wb.state().busy:
            if self.running is not session:
                raise RequestError.invalid_request(
                    {"message": "another branch of this session is working; wait or cancel it"}
                )
            await self.wb.steer(text)
            reason = await self._finish()
            queued = self.wb.queues()["steering"]
            if text not in queued or self.wb.state().busy:
                return reason
            self.wb.remove_queued("steering", queued.index(text))  # came as the run ended
        await self.activate(session)
        self.cancelled = False
        self.running = session
        command = acp_commands.find(self.wb, text)
        if command is not None:
            return await self._command(*command)
        self.translator.refused = self.translator.max_tokens = False
        try:
            await self.trust_if_asked()
            await self.wb.prompt(text)
        except WorkbenchError as exc:
            self._error(exc)
            return "end_turn"
        if not self.wb.state().busy:  # no run: a refused /skill:NAME, an extension's input
            await self.outbox.flush()
            return "refusal" if self.translator.refused else "end_turn"
        return await self._finish()

    async def _command(self, command: AnyCommand, args: str) -> StopReason:
        try:
            answer = await acp_commands.answer(self.wb, command, args)
        except WorkbenchError as exc:
            self._error(exc)
        else:
            if answer:
                self.send(update_agent_message_text(answer))
        if self.wb.state().busy:  # a command that started a run (an extension's)
            return await self._finish()
        await self.outbox.flush()
        return "cancelled" if self.cancelled else "end_turn"

    def _error(self, exc: WorkbenchError) -> None:
        hint = f"\n{exc.hint}" if exc.hint else ""
        self.send(update_agent_message_text(f"Error: {exc.message}{hint}"))

    async def _finish(self) -> StopReason:
        reason = await self.wb.wait_idle()
        await self.outbox.flush()
        if reason == "aborted" or self.cancelled:
            return "cancelled"
        return "max_tokens" if self.translator.max_tokens else "end_turn"

    async def cancel(self) -> None:
        """Abort the run at once; what was queued for it goes too (the client asked to stop); a
        sweep's runs are all stopped (`/sweep`'s turn then ends, each run keeping what it did)."""
        self.cancelled = True
        self.wb.clear_queue()
        await asyncio.gather(self.wb.abort(), self.wb.stop_sweep())
