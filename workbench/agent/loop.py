"""The agent loop: model -> tool calls -> results -> model, until the model stops calling tools.

The loop owns no UI and no policy beyond this: it asks the model, runs the tools it calls, records
every finished message in the store before the next step, publishes an event at every step, and
lets the user interrupt. Steering is checked after each tool; when a message waits, the remaining
calls of that reply are answered "Skipped due to queued user message." and the model hears the
user at once. Follow-ups wait until the agent would stop. Abort is asyncio cancellation of the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from workbench.agent import compaction
from workbench.agent.events import (
    AgentEnd,
    AgentStart,
    CompactionEnd,
    CompactionStart,
    ErrorEvent,
    Event,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    RetryEnd,
    RetryStart,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    TurnEnd,
    TurnStart,
    UsageUpdate,
)
from workbench.agent.model import (
    AssistantAssembler,
    Finish,
    ModelClient,
    ModelError,
    ModelRequest,
)
from workbench.agent.queues import MessageQueue, QueueMode
from workbench.agent.store import ConversationStore, messages_of
from workbench.agent.tool_args import check_arguments
from workbench.errors import WorkbenchError
from workbench.hooks import AgentEndEvent, ContextEvent, HookBus, ToolCallEvent, ToolResultEvent
from workbench.messages import Message, ToolCall
from workbench.tool import Tool, ToolContext, ToolResult

log = logging.getLogger(__name__)
T = TypeVar("T")

SKIPPED_FOR_STEERING = "Skipped due to queued user message."
SKIPPED_FOR_ABORT = "Skipped: the run was aborted by the user."
ABORTED_TOOL = "Aborted by the user while running."
LENGTH_LIMITED = (
    "Not executed: the reply hit the output token limit, so these arguments may be incomplete. "
    "Call the tool again with complete arguments."
)


@dataclass
class RetryPolicy:
    """Our own retries (litellm's and the SDK's are off): exponential backoff from `base_delay_s`,
    or the server's Retry-After when it says so, capped at `max_delay_s`."""

    max_retries: int = 3
    base_delay_s: float = 1.0
    max_delay_s: float = 60.0

    def delay(self, attempt: int, error: ModelError) -> float:
        backoff = self.base_delay_s * 2 ** (attempt - 1)
        if error.retry_after is not None:
            backoff = max(error.retry_after, 0.0)
        return min(backoff, self.max_delay_s)


@dataclass
class AgentConfig:
    steering_mode: QueueMode = "one-at-a-time"
    follow_up_mode: QueueMode = "one-at-a-time"
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    compaction: compaction.CompactionSettings = field(default_factory=compaction.CompactionSettings)


class Agent:
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
        self._task = asyncio.create_task(self._run(prompts), name="agent-run")
        return self._task

    def start_compaction(self, focus: str | None) -> asyncio.Task[str]:
        """Compact by hand (`/compact [focus]`) as an abortable task."""
        if self.busy:
            raise WorkbenchError("cannot compact while the agent works", "wait, or abort first")
        self._task = asyncio.create_task(self._manual_compaction(focus), name="agent-compact")
        return self._task

    async def abort(self) -> None:
        """Cancel the running step (model stream, tool, retry wait or compaction) and wait until
        the aborted turn is recorded."""
        task = self._task
        if task is None or task.done():
            return
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
                for message in pending:
                    await self.record(message)
                reply = await self._respond()
                results = await self._run_tools(reply) if reply.tool_calls else []
                self.emit(TurnEnd(reply, results))
                if reply.stop_reason in ("error", "truncated"):
                    raise ModelError("other", reply.details.get("error", "the model call failed"))
                pending = self.steering.take()
                if not reply.tool_calls and not pending:
                    break
            pending = self.follow_ups.take()
            if not pending:
                return

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
        the log. So the append is awaited to its end, then the cancellation goes on.
        """
        append = asyncio.ensure_future(self.store.append(message.role, message.to_dict()))
        try:
            await asyncio.shield(append)
        except asyncio.CancelledError:
            await append
            self.messages.append(message)
            raise
        self.messages.append(message)

    # -- the model call ---------------------------------------------------------------------

    def context_tokens(self) -> int:
        overhead = compaction.estimate_text(
            self.system_prompt + json.dumps([t.schema() for t in self.tools.values()])
        )
        return compaction.context_tokens(self.messages, overhead)

    def _limits(self) -> tuple[int, int]:
        """Reserve and keep-recent budgets, shrunk for small context windows."""
        settings = self.config.compaction
        window = self.model.info.context_window
        reserve = min(settings.reserve_tokens, window // 4)
        keep = min(settings.keep_recent_tokens, (window - reserve) // 2)
        return reserve, keep

    async def _respond(self) -> Message:
        """One assistant reply: compact first if the context is near full; on a context overflow,
        compact and try once more; retry transient failures with backoff."""
        reserve, _ = self._limits()
        if self.config.compaction.enabled and self.context_tokens() > (
            self.model.info.context_window - reserve
        ):
            with contextlib.suppress(ModelError):  # compaction_end reports it; the context
                await self.compact("threshold")  # still fits, so the reply goes ahead
        try:
            return await self._with_retries(self._stream_reply)
        except ModelError as exc:
            if exc.kind != "context_overflow" or not self.config.compaction.enabled:
                raise
            overflow = exc
        try:
            await self.compact("overflow")
        except WorkbenchError:
            raise overflow from None  # nothing older to summarise: the overflow is the news
        return await self._with_retries(self._stream_reply)

    async def _with_retries(self, call: Callable[[], Awaitable[T]]) -> T:
        policy = self.config.retry
        attempt = 0
        while True:
            try:
                result = await call()
            except ModelError as exc:
                if not exc.retryable or attempt >= policy.max_retries:
                    if attempt:
                        self.emit(RetryEnd(attempt, success=False, error=exc.message))
                    raise
                attempt += 1
                delay = policy.delay(attempt, exc)
                self.emit(RetryStart(attempt, policy.max_retries, delay * 1000, exc.message))
                try:
                    await asyncio.sleep(delay)
                except asyncio.CancelledError:
                    self.emit(RetryEnd(attempt, success=False, error="aborted"))
                    raise
                continue
            if attempt:
                self.emit(RetryEnd(attempt, success=True))
            return result

    async def _context(self) -> list[Message]:
        messages = compaction.build_context(self.messages)
        if self.bus.has("context"):
            event = ContextEvent(messages)
            await self.bus.run("context", event)
            messages = event.messages
        return messages

    async def _stream_reply(self) -> Message:
        """Stream one reply. Errors before any content are raised (and may be retried); after
        content has streamed, the partial reply is recorded as failed instead."""
        request = ModelRequest(self.system_prompt, await self._context(), list(self.tools.values()))
        assembler = AssistantAssembler()
        started = False
        loop = asyncio.get_running_loop()
        yielded = loop.time()
        try:
            async for delta in self.model.stream(request):
                if not started and not isinstance(delta, Finish):
                    started = True
                    self.emit(MessageStart(assembler.message))
                piece = assembler.add(delta)
                if piece is not None:
                    self.emit(MessageUpdate(assembler.message, piece[0], piece[1]))
                if loop.time() - yielded > 0.01:
                    # A burst of buffered chunks never awaits anything that blocks, so give the
                    # event loop (keystrokes, redraws) a turn every 10 ms; not per chunk: slower.
                    await asyncio.sleep(0)
                    yielded = loop.time()
        except asyncio.CancelledError:
            await self._finish_reply(assembler, "aborted", started)
            raise
        except ModelError as exc:
            if not started:
                raise
            await self._finish_reply(assembler, "error", started, exc.message)
            return assembler.message
        reason = None if assembler.finish is None else assembler.finish.reason
        if reason is None:
            await self._finish_reply(
                assembler,
                "truncated",
                started,
                "the model's reply was cut off: the stream ended without a finish reason",
            )
        else:
            await self._finish_reply(assembler, None, started)
        return assembler.message

    async def _finish_reply(
        self, assembler: AssistantAssembler, failure: str | None, started: bool, error: str = ""
    ) -> None:
        """Complete, record and publish the reply. A failed reply keeps its text but not its tool
        calls: they were never run and may be incomplete."""
        message = assembler.complete()
        if failure is not None:
            message.stop_reason = failure  # type: ignore[assignment]
            if message.tool_calls:
                message.details["dropped_tool_calls"] = [c.name for c in message.tool_calls]
                message.tool_calls = []
            if error:
                message.details["error"] = error
        if message.usage is not None:
            message.usage.cost = self.model.info.cost(message.usage)
        await self.record(message, announce=not started)
        if message.usage is not None:
            self.emit(
                UsageUpdate(
                    message.usage,
                    self.total_cost(),
                    self.context_tokens(),
                    self.model.info.context_window,
                )
            )

    def total_cost(self) -> float | None:
        """The branch's model cost so far; None when any call's price was unknown."""
        total = 0.0
        for message in self.messages:
            if message.role == "assistant" and message.usage is not None:
                if message.usage.cost is None:
                    return None
                total += message.usage.cost
        return total

    # -- tools ------------------------------------------------------------------------------

    async def _run_tools(self, reply: Message) -> list[Message]:
        """Run the reply's tool calls in order; stop early when steering is queued."""
        calls = reply.tool_calls
        results: list[Message] = []
        if reply.stop_reason == "length":
            for call in calls:
                results.append(await self._skip(call, LENGTH_LIMITED))
            return results
        for index, call in enumerate(calls):
            try:
                results.append(await self._execute(call, reply))
            except asyncio.CancelledError:
                if self.messages[-1].tool_call_id != call.id:
                    results.append(await self._skip(call, ABORTED_TOOL, skipped=False))
                for rest in calls[index + 1 :]:
                    results.append(await self._skip(rest, SKIPPED_FOR_ABORT))
                raise
            if len(self.steering) and index + 1 < len(calls):
                for rest in calls[index + 1 :]:
                    results.append(await self._skip(rest, SKIPPED_FOR_STEERING))
                break
        return results

    async def _skip(self, call: ToolCall, reason: str, skipped: bool = True) -> Message:
        """Record an error result for a call that did not run (or did not finish)."""
        if skipped:
            self.emit(ToolExecutionStart(call.id, call.name, call.arguments))
        result = ToolResult(reason, is_error=True)
        self.emit(ToolExecutionEnd(call.id, call.name, call.arguments, result, 0.0, skipped))
        message = _result_message(call, result)
        await self.record(message)
        return message

    async def _execute(self, call: ToolCall, reply: Message) -> Message:
        self.emit(ToolExecutionStart(call.id, call.name, call.arguments))
        started = time.perf_counter()
        args, result = await self._outcome(call, reply)
        duration = (time.perf_counter() - started) * 1000
        self.emit(ToolExecutionEnd(call.id, call.name, args, result, duration))
        message = _result_message(call, result)
        await self.record(message)
        return message

    async def _outcome(self, call: ToolCall, reply: Message) -> tuple[dict[str, Any], ToolResult]:
        """The call's (possibly hook-changed) arguments and its result: unknown tools, invalid
        arguments and blocked calls become error results the model reads."""
        args = call.arguments
        tool = self.tools.get(call.name)
        if tool is None:
            available = ", ".join(self.tools) or "none"
            return args, ToolResult(
                f"Unknown tool {call.name!r}. Available tools: {available}.", is_error=True
            )
        problem = reply.details.get("invalid_arguments", {}).get(call.id) or check_arguments(
            tool.parameters, args
        )
        if problem:
            return args, ToolResult(f"Invalid arguments for {call.name}: {problem}", is_error=True)
        if self.bus.has("tool_call"):
            gate = ToolCallEvent(call.id, call.name, args, self.cwd)
            await self.bus.run("tool_call", gate)
            args = gate.args
            if gate.block:
                return args, ToolResult(gate.block, is_error=True, details=gate.details)
        result = await self._invoke(tool, call, args)
        if self.bus.has("tool_result"):
            patched = ToolResultEvent(call.id, call.name, args, self.cwd, result)
            await self.bus.run("tool_result", patched)
            result = patched.result
        return args, result

    async def _invoke(self, tool: Tool, call: ToolCall, args: dict[str, Any]) -> ToolResult:
        def update(text: str) -> None:
            self.emit(ToolExecutionUpdate(call.id, call.name, args, text))

        context = ToolContext(cwd=self.cwd, tool_call_id=call.id, update=update)
        try:
            return await tool.execute(args, context)
        except WorkbenchError as exc:
            hint = f"\nHint: {exc.hint}" if exc.hint else ""
            return ToolResult(f"{exc.message}{hint}", is_error=True)
        except Exception as exc:  # a tool's bug becomes an error the model and the user see
            log.exception("tool %s failed", call.name)
            return ToolResult(f"{call.name} failed: {type(exc).__name__}: {exc}", is_error=True)

    # -- compaction -------------------------------------------------------------------------

    async def _manual_compaction(self, focus: str | None) -> str:
        """Compact; then deliver anything the user queued meanwhile (nothing else would)."""
        try:
            await self.compact("manual", focus)
        except asyncio.CancelledError:
            return "aborted"
        except (ModelError, WorkbenchError):
            return "error"
        queued = self.steering.take() or self.follow_ups.take()
        return await self._run(queued) if queued else "completed"

    async def compact(self, reason: str, focus: str | None = None) -> Message | None:
        """Summarise older history (see `workbench.agent.compaction`); the summary is recorded and
        the context of every later call starts with it."""
        before = self.context_tokens()
        self.emit(CompactionStart(reason, before))
        _, keep = self._limits()
        plan = compaction.plan_compaction(self.messages, keep)
        if plan is None:
            error = "nothing to compact: the whole context is recent enough to keep"
            self.emit(CompactionEnd(reason, before, error=error))
            if reason != "threshold":
                raise WorkbenchError(error)
            return None
        reserve, _ = self._limits()
        request = compaction.summary_request(plan, focus, int(reserve * 0.8))
        try:
            body = await self.complete_text(request)
        except asyncio.CancelledError:
            self.emit(CompactionEnd(reason, before, error="aborted"))
            raise
        except ModelError as exc:
            self.emit(CompactionEnd(reason, before, error=exc.message))
            raise
        message = compaction.summary_message(plan, body, before)
        await self._append(message)
        self.emit(CompactionEnd(reason, before, self.context_tokens(), message))
        return message

    async def summarize(self, messages: list[Message], focus: str | None = None) -> str:
        """A goal-first summary of `messages` by the compaction summariser, with the files read and
        modified: what a branch left behind (navigation) or brings back (a merge) is worth."""
        reserve, _ = self._limits()
        plan = compaction.whole_plan(messages)
        body = await self.complete_text(compaction.summary_request(plan, focus, int(reserve * 0.8)))
        return compaction.summary_message(plan, body, 0).text

    async def complete_text(self, request: ModelRequest) -> str:
        """The text of one side request to the current model (a summary, a commit message draft),
        retried like a turn; not recorded in the conversation."""
        return await self._with_retries(lambda: self._complete_text(request))

    async def _complete_text(self, request: ModelRequest) -> str:
        assembler = AssistantAssembler()
        async for delta in self.model.stream(request):
            assembler.add(delta)
        if assembler.finish is None:
            raise ModelError("connection", "the summary stream ended without a finish reason")
        return assembler.message.text


def _result_message(call: ToolCall, result: ToolResult) -> Message:
    return Message(
        role="tool_result",
        text=result.text,
        tool_call_id=call.id,
        tool_name=call.name,
        is_error=result.is_error,
        details=result.details,
    )
