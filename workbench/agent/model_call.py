"""Asking the model for the agent loop: one streamed reply, with our own retries.

Errors before any content are raised and retried with backoff when transient (rate limits,
overload, 5xx); after content has streamed, the partial reply is recorded as failed instead. A
stream that ends without a finish reason is recorded as truncated (litellm does not raise).
Side requests (a summary, a commit message draft) go through the same retries, unrecorded.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from workbench.agent import compaction_plan
from workbench.agent.config import RetryPolicy
from workbench.agent.costs import USAGE_UNKNOWN, PricedText
from workbench.agent.events import (
    MessageStart,
    MessageUpdate,
    RetryEnd,
    RetryStart,
    UsageUpdate,
)
from workbench.agent.models.client import (
    AssistantAssembler,
    Finish,
    ModelError,
    ModelRequest,
    model_record,
)
from workbench.agent.models.rate_gate import HOLDING_KINDS, provider_key
from workbench.agent.state import AgentState
from workbench.agent.tool_execution import SKIPPED_FOR_ABORT, ToolRunner
from workbench.hooks import ContextEvent, HookBus
from workbench.messages import Message, StopReason
from workbench.text import count_of

T = TypeVar("T")


class ModelCaller:
    """Asks the agent's current model (see `workbench.agent.loop`): the model, tools, prompt and
    messages come from the shared state; a reply's calls aborted while it was recorded are
    answered by the tool runner."""

    def __init__(
        self, state: AgentState, bus: HookBus, retry: RetryPolicy, tool_runner: ToolRunner
    ) -> None:
        self.state = state
        self.bus = bus
        self.retry = retry
        self.tool_runner = tool_runner

    async def reply(self) -> Message:
        """One recorded assistant reply, transient failures retried with backoff."""
        return await self._with_retries(self._stream_reply)

    async def _with_retries(self, call: Callable[[], Awaitable[T]]) -> T:
        policy = self.retry
        attempt, kind = 0, ""
        while True:
            try:
                if policy.gate is not None:
                    await policy.gate.wait(self._provider())
                result = await call()
            except ModelError as exc:
                if not exc.retryable or attempt >= policy.max_retries:
                    if attempt:
                        self.state.emit(RetryEnd(attempt, False, exc.message, kind))
                    raise
                attempt, kind = attempt + 1, exc.kind
                delay = policy.delay(attempt, exc)
                if policy.gate is not None and exc.kind in HOLDING_KINDS:
                    policy.gate.hold(self._provider(), delay)
                start = RetryStart(attempt, policy.max_retries, delay * 1000, exc.message, kind)
                self.state.emit(start)
                try:
                    await asyncio.sleep(delay)
                except asyncio.CancelledError:
                    self.state.emit(RetryEnd(attempt, success=False, error="aborted", kind=kind))
                    raise
                continue
            if attempt:
                self.state.emit(RetryEnd(attempt, success=True, kind=kind))
            return result

    def _provider(self) -> str:
        """The current model's provider, as the shared rate gate knows it."""
        record = model_record(self.state.model)
        return provider_key(record["name"], record.get("api_base"))

    async def _context(self) -> list[Message]:
        messages = compaction_plan.build_context(self.state.messages)
        if self.bus.has("context"):
            event = ContextEvent(messages)
            await self.bus.run("context", event)
            messages = event.messages
        return messages

    async def _stream_reply(self) -> Message:
        """Stream one reply. Errors before any content are raised (and may be retried); after
        content has streamed, the partial reply is recorded as failed instead."""
        request = ModelRequest(
            self.state.system_prompt,
            await self._context(),
            list(self.state.tools.values()),
            system_suffix=self.state.system_suffix,
            cache_key=self.state.store.session_id,
        )
        assembler = AssistantAssembler()
        started = False
        loop = asyncio.get_running_loop()
        yielded = loop.time()
        try:
            async for delta in self.state.model.stream(request):
                if not started and not isinstance(delta, Finish):
                    started = True
                    self.state.emit(MessageStart(assembler.message))
                piece = assembler.add(delta)
                if piece is not None:
                    self.state.emit(MessageUpdate(assembler.message, *piece))
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
        self,
        assembler: AssistantAssembler,
        failure: StopReason | None,
        started: bool,
        error: str = "",
    ) -> None:
        """Complete, record and publish the reply. A failed reply keeps its text but not its tool
        calls: they were never run and may be incomplete."""
        message = assembler.complete()
        message.details["model"] = model_record(self.state.model)
        if failure is not None:
            message.stop_reason = failure
            if message.tool_calls:
                message.details["dropped_tool_calls"] = [c.name for c in message.tool_calls]
                message.tool_calls = []
            if error:
                message.details["error"] = error
        if message.usage is not None:
            message.usage.cost = self.state.model.info.cost(message.usage)
        elif not self.state.model.info.offline and (failure is None or started):
            message.details[USAGE_UNKNOWN] = True
        try:
            await self.state.record(message, announce=not started)
        except asyncio.CancelledError:
            # Aborted while it was written: it is in the log, and so are its calls' results.
            await self.tool_runner.skip_all(message.tool_calls, SKIPPED_FOR_ABORT)
            raise
        if message.usage is not None:
            totals = self.state.totals()
            self.state.emit(
                UsageUpdate(
                    message.usage,
                    totals.cost,
                    self.state.context_tokens(),
                    self.state.model.info.context_window,
                    totals.to_json(),
                    message.usage.hit_rate,
                    totals.hit_rate,
                )
            )

    async def complete_text(self, request: ModelRequest) -> str:
        """The text of one side request to the current model (a summary, a commit message draft),
        retried like a turn; not recorded in the conversation, but its usage comes with it
        (`PricedText`) for the entry it ends up in."""
        reply = await self.complete(request)
        return PricedText(reply.text, vars(reply.usage) if reply.usage is not None else None)

    async def complete(self, request: ModelRequest) -> Message:
        """One side request's whole reply, its usage priced (a compaction records what its
        summary cost)."""
        return await self._with_retries(lambda: self._complete(request))

    async def _complete(self, request: ModelRequest) -> Message:
        assembler = AssistantAssembler()
        async for delta in self.state.model.stream(request):
            assembler.add(delta)
        if assembler.finish is None:
            raise ModelError("connection", "the summary stream ended without a finish reason")
        message = assembler.complete()
        if message.usage is not None:
            message.usage.cost = self.state.model.info.cost(message.usage)
        return message


def kept_hint(reply: Message) -> str:
    """What a reply cut off mid-stream kept, and how to go on from it."""
    if reply.text:
        kept = f"its first {count_of(len(reply.text), 'character')} are kept in the conversation"
    else:
        kept = "nothing of it was kept"
    dropped = reply.details.get("dropped_tool_calls") or []
    if dropped:
        kept += f"; its unfinished calls ({', '.join(dropped)}) were not run"
    return f"{kept}: send “continue” to go on from there, or send your request again"
