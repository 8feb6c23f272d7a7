"""The agent loop: model -> tool calls -> results -> model, until the model stops calling tools.

The loop owns no UI and no policy beyond this: it asks the model, runs the tools it calls, records
every finished message in the store before the next step, publishes an event at every step, and
lets the user interrupt. Steering is checked after each tool; when a message waits, the remaining
calls of that reply are answered "Skipped due to queued user message." and the model hears the
user at once. Follow-ups wait until the agent would stop. Abort is asyncio cancellation of the run.

The parts of a step live beside it: asking the model with retries (`model_call`), running the
tool calls (`tool_execution`) and compacting the context (`compacting`); `Agent` mixes them in.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from workbench.agent.compacting import Compacting
from workbench.agent.config import AgentConfig, RetryPolicy
from workbench.agent.events import (
    AgentEnd,
    AgentStart,
    ErrorEvent,
    Event,
    MessageEnd,
    MessageStart,
    TurnEnd,
    TurnStart,
)
from workbench.agent.model_call import ModelCalls
from workbench.agent.models.client import ModelClient, ModelError
from workbench.agent.queues import MessageQueue
from workbench.agent.store import ConversationStore, messages_of
from workbench.agent.tool_execution import (
    ABORTED_TOOL,
    LENGTH_LIMITED,
    SKIPPED_FOR_ABORT,
    SKIPPED_FOR_STEERING,
    ToolExecution,
)
from workbench.agent.unsplit import run_to_end
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


class Agent(ToolExecution, ModelCalls, Compacting):
    """One conversation's loop. `start()` runs it as a task; `abort()` cancels that task."""

    def __init__(
        self,
        *,
        model: ModelClient,
        tools: list[Tool],
        store: ConversationStore,
        emit: Callable[[Event], None],
        cwd: Path,
        system_prompt: str = "",
        bus: HookBus | None = None,
        config: AgentConfig | None = None,
        on_queue_change: Callable[[], None] = lambda: None,
    ) -> None:
        self.model = model
        self.tools = {tool.name: tool for tool in tools}
        self.store = store
        self.emit = emit
        self.cwd = cwd
        self.bus = bus or HookBus()
        self.config = config or AgentConfig()
        self.system_prompt = system_prompt
        self.messages: list[Message] = messages_of(store.path())
        self.steering = MessageQueue("steering", self.config.steering_mode, on_queue_change)
        self.follow_ups = MessageQueue("follow-up", self.config.follow_up_mode, on_queue_change)
        self._task: asyncio.Task[str] | None = None
        self._began = asyncio.Event()

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
            self.system_prompt = system_prompt
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

    async def _run(self, prompts: list[Message]) -> str:
        self.emit(AgentStart())
        stop_reason, error = "completed", None
        try:
            await self._loop([*prompts, *self.steering.take()])
        except asyncio.CancelledError:
            stop_reason = "aborted"
        except (ModelError, WorkbenchError) as exc:
            stop_reason, error = "error", exc.message
            self.emit(ErrorEvent(exc.message, getattr(exc, "hint", None)))
        except Exception as exc:  # a bug: end the run visibly instead of leaving it hanging
            log.exception("the agent run failed")
            stop_reason, error = "error", f"unexpected error: {exc!r}"
            self.emit(ErrorEvent(error, "this is a bug in workbench or an extension"))
        if self.bus.has("agent_end"):
            await self.bus.run("agent_end", AgentEndEvent(list(self.messages), stop_reason))
        self.emit(AgentEnd(stop_reason, error))
        return stop_reason

    async def _loop(self, pending: list[Message]) -> None:
        turn = 0
        while True:
            while True:
                turn += 1
                self.emit(TurnStart(turn))
                begun = len(self.messages)
                try:
                    await run_to_end(self._record_all(pending))
                    reply = await self._respond()
                    results = await self._run_tools(reply) if reply.tool_calls else []
                except asyncio.CancelledError:
                    self.emit(self._aborted_turn(self.messages[begun:]))
                    raise
                self.emit(TurnEnd(reply, results))
                if reply.stop_reason in ("error", "truncated"):
                    raise ModelError("other", reply.details.get("error", "the model call failed"))
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
            await self.record(message)

    async def record(self, message: Message, announce: bool = True) -> None:
        """Publish a finished message and append it to the store before anything else happens
        (`announce=False`: its message_start was already published while it streamed)."""
        if announce:
            self.emit(MessageStart(message))
        try:
            await self._append(message)
        finally:
            if self.messages and self.messages[-1] is message:
                self.emit(MessageEnd(message))

    async def _append(self, message: Message) -> None:
        """Store `message` and add it to `self.messages` as one step that an abort cannot split.

        A store that writes on another thread (git) finishes an entry even when its caller is
        cancelled; were the loop to forget that entry, the abort handling would record the same
        tool call's result a second time and the next run would see a different history than
        the log. So the append runs to its end, then the cancellation goes on (`unsplit`).
        """

        async def store_and_keep() -> None:
            await self.store.append(message.role, message.to_dict())
            self.messages.append(message)

        await run_to_end(store_and_keep())
