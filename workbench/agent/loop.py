"""The agent loop: model -> tool calls -> results -> model, until the model stops calling tools.

The loop owns no UI and no policy beyond this: it asks the model, runs the tools it calls, records
every finished message in the store before the next step, publishes an event at every step, and
lets the user interrupt. Steering is checked after each tool; when a message waits, the remaining
calls of that reply are answered "Skipped due to queued user message." and the model hears the
user at once. Follow-ups wait until the agent would stop. Abort is asyncio cancellation of the run.

`Agent` runs the turns and owns the parts of a step, each an object given what it uses: the
`AgentState` they share (model, tools, messages, recording: `state`), a `ToolRunner` for the
calls of a reply (`tool_execution`), a `ModelCaller` for one reply or a side request with retries
(`model_call`) and a `Compactor` (`compactor`). Each part imports only the ones below it; the
loop decides when to compact around a reply. Its settings are `AgentConfig` (`config`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from workbench.agent.atomic_steps import run_to_end
from workbench.agent.compactor import Compactor
from workbench.agent.config import AgentConfig, RetryPolicy
from workbench.agent.events import (
    AgentEnd,
    AgentEvent,
    AgentStart,
    AgentStopReason,
    ErrorEvent,
    TurnEnd,
    TurnStart,
)
from workbench.agent.model_call import ModelCaller, kept_hint
from workbench.agent.models.client import ModelClient, ModelError, ModelRequest
from workbench.agent.queues import MessageQueue
from workbench.agent.state import AgentState
from workbench.agent.store import ConversationStore, messages_of
from workbench.agent.tool_execution import (
    ABORTED_TOOL,
    LENGTH_LIMITED,
    SKIPPED_FOR_ABORT,
    SKIPPED_FOR_STEERING,
    ToolRunner,
)
from workbench.errors import WorkbenchError
from workbench.hooks import AgentEndEvent, HookBus
from workbench.messages import Message
from workbench.tool import Tool

__all__ = [
    "ABORTED_TOOL",
    "LENGTH_LIMITED",
    "SKIPPED_FOR_ABORT",
    "SKIPPED_FOR_STEERING",
    "Agent",
    "AgentConfig",
    "RetryPolicy",
]

log = logging.getLogger(__name__)


class Agent:
    """One conversation's loop. `start()` runs it as a task; `abort()` cancels that task."""

    def __init__(
        self,
        *,
        model: ModelClient,
        tools: list[Tool],
        store: ConversationStore,
        emit: Callable[[AgentEvent], None],
        cwd: Path,
        system_prompt: str = "",
        bus: HookBus | None = None,
        config: AgentConfig | None = None,
        on_queue_change: Callable[[], None] = lambda: None,
    ) -> None:
        self.state = AgentState(
            model=model,
            tools={tool.name: tool for tool in tools},
            store=store,
            emit=emit,
            cwd=cwd,
            system_prompt=system_prompt,
            messages=messages_of(store.path()),
        )
        """What the parts share, and what the layers above read and change (the model, the
        tools, the messages, the store, the folder): a change is seen at the parts' next step."""
        self.bus = bus or HookBus()
        self.config = config or AgentConfig()
        self.steering = MessageQueue("steering", self.config.steering_mode, on_queue_change)
        self.follow_ups = MessageQueue("follow-up", self.config.follow_up_mode, on_queue_change)
        self._tool_runner = ToolRunner(self.state, self.bus, self.steering)
        self._model_caller = ModelCaller(self.state, self.bus, self.config.retry, self._tool_runner)
        self._compactor = Compactor(self.state, self.config.compaction, self._model_caller)
        self._task: asyncio.Task[str] | None = None
        self._began = asyncio.Event()

    # -- side requests: not recorded, retried like a turn --------------------------------------

    async def complete_text(self, request: ModelRequest) -> str:
        """The text of one side request to the current model (a commit message draft)."""
        return await self._model_caller.complete_text(request)

    async def summarize(self, messages: list[Message], focus: str | None = None) -> str:
        """A goal-first summary of `messages` (what navigation leaves behind, what a merge
        brings back); see `Compactor.summarize`."""
        return await self._compactor.summarize(messages, focus)

    # -- running ---------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self, prompts: list[Message], system_prompt: str | None = None) -> asyncio.Task[str]:
        """Run the loop on `prompts` (plus any steering still queued) in a new task; the task's
        result is the stop reason. `system_prompt` replaces the session's for this run."""
        if self.busy:
            raise WorkbenchError(
                "the agent is already working",
                "use steer to redirect it now, or follow_up to queue a message for when it stops",
            )
        if system_prompt is not None:
            self.state.system_prompt = system_prompt
        return self._launch(self._run(prompts), "agent-run")

    def start_compaction(self, focus: str | None) -> asyncio.Task[str]:
        """Compact by hand (`/compact [focus]`) as an abortable task."""
        if self.busy:
            raise WorkbenchError("cannot compact while the agent works", "wait, or abort first")
        return self._launch(self._manual_compaction(focus), "agent-compact")

    def _launch(self, job: Coroutine[Any, Any, str], name: str) -> asyncio.Task[str]:
        """Run `job` as the agent's task, noting when it has begun (see `abort`)."""
        began = self._began = asyncio.Event()

        async def begin() -> str:
            began.set()
            return await job

        self._task = asyncio.create_task(begin(), name=name)
        return self._task

    async def abort(self) -> None:
        """Cancel the running step (model stream, tool, retry wait or compaction) and wait until
        the aborted turn is recorded. A task cancelled before its first step would not run at
        all, and the prompts it was given would be lost: the abort waits until it has begun."""
        task = self._task
        if task is None or task.done():
            return
        await self._began.wait()
        if not task.cancelling():
            task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    async def wait(self) -> str | None:
        """Wait for the current run; its stop reason (None when nothing ran)."""
        if self._task is None:
            return None
        return await asyncio.shield(self._task)

    async def _manual_compaction(self, focus: str | None) -> str:
        """Compact; then deliver anything the user queued meanwhile (nothing else would)."""
        try:
            await self._compactor.compact("manual", focus)
        except asyncio.CancelledError:
            return "aborted"
        except (ModelError, WorkbenchError):
            return "error"
        queued = self.steering.take() or self.follow_ups.take()
        return await self._run(queued) if queued else "completed"

    async def _run(self, prompts: list[Message]) -> str:
        self.state.emit(AgentStart())
        stop_reason: AgentStopReason = "completed"
        error: str | None = None
        try:
            await self._loop([*prompts, *self.steering.take()])
            if self.state.checkpoints is not None:  # the snapshots made while it went on
                await self.state.checkpoints.settle()
        except asyncio.CancelledError:
            stop_reason = "aborted"
        except (ModelError, WorkbenchError) as exc:
            stop_reason, error = "error", exc.message
            self.state.emit(ErrorEvent(exc.message, getattr(exc, "hint", None)))
        except Exception as exc:  # a bug: end the run visibly instead of leaving it hanging
            log.exception("the agent run failed")
            stop_reason, error = "error", f"unexpected error: {exc!r}"
            self.state.emit(ErrorEvent(error, "this is a bug in workbench or an extension"))
        if self.bus.has("agent_end"):
            await self.bus.run("agent_end", AgentEndEvent(list(self.state.messages), stop_reason))
        self.state.emit(AgentEnd(stop_reason, error))
        return stop_reason

    async def _loop(self, pending: list[Message]) -> None:
        turn = 0
        while True:
            while True:
                turn += 1
                self.state.emit(TurnStart(turn))
                begun = len(self.state.messages)
                try:
                    await run_to_end(self._record_all(pending))
                    reply = await self._respond()
                    results = await self._tool_runner.run(reply) if reply.tool_calls else []
                except asyncio.CancelledError:
                    self.state.emit(self._aborted_turn(self.state.messages[begun:]))
                    raise
                self.state.emit(TurnEnd(reply, results))
                if reply.stop_reason in ("error", "truncated"):
                    error = reply.details.get("error", "the model call failed")
                    raise ModelError("other", error, hint=kept_hint(reply))
                pending = self.steering.take()
                if not reply.tool_calls and not pending:
                    break
            pending = self.follow_ups.take()
            if not pending:
                return

    @staticmethod
    def _aborted_turn(recorded: list[Message]) -> TurnEnd:
        """The end of a turn an abort stopped: its reply as recorded (None when the abort came
        before one) and the results recorded for that reply's calls, aborted ones included. The
        reply keeps the stop reason it was recorded with: entries are immutable, and the results
        and `agent_end` say what the abort did."""
        replies = [i for i, m in enumerate(recorded) if m.role == "assistant"]
        if not replies:
            return TurnEnd(None, [])
        after = recorded[replies[-1] + 1 :]
        return TurnEnd(recorded[replies[-1]], [m for m in after if m.role == "tool_result"])

    async def _record_all(self, messages: list[Message]) -> None:
        """Record a turn's user messages in order; the loop lets no abort split this (taken
        from their queues, they exist nowhere else)."""
        for message in messages:
            await self.state.record(message)

    async def _respond(self) -> Message:
        """One assistant reply: compact first if the context is near full; on a context overflow,
        compact and try once more (transient failures are retried by the model caller)."""
        if self.config.compaction.enabled and self._compactor.near_full():
            with contextlib.suppress(ModelError):  # compaction_end reports it; the context
                await self._compactor.compact("threshold")  # still fits, so the reply goes ahead
        try:
            return await self._model_caller.reply()
        except ModelError as exc:
            if exc.kind != "context_overflow" or not self.config.compaction.enabled:
                raise
            overflow = exc
        try:
            await self._compactor.compact("overflow")
        except WorkbenchError:
            raise overflow from None  # nothing older to summarise: the overflow is the news
        return await self._model_caller.reply()
