"""Asking the model for the agent loop: one streamed reply, with our own retries.

Errors before any content are raised and retried with backoff when transient (rate limits,
overload, 5xx); after content has streamed, the partial reply is recorded as failed instead. A
stream that ends without a finish reason is recorded as truncated (litellm does not raise).
Side requests (a summary, a commit message draft) go through the same retries, unrecorded.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import TypeVar

from workbench.agent import compaction
from workbench.agent.config import AgentConfig
from workbench.agent.events import (
    Event,
    MessageStart,
    MessageUpdate,
    RetryEnd,
    RetryStart,
    UsageUpdate,
)
from workbench.agent.models.client import (
    AssistantAssembler,
    Finish,
    ModelClient,
    ModelError,
    ModelRequest,
)
from workbench.agent.tool_execution import SKIPPED_FOR_ABORT
from workbench.errors import WorkbenchError
from workbench.hooks import ContextEvent, HookBus
from workbench.messages import Message, ToolCall
from workbench.tool import Tool

T = TypeVar("T")


class ModelCalls:
    """Mixed into `Agent` (see `workbench.agent.loop`); uses the attributes declared here."""

    model: ModelClient
    tools: dict[str, Tool]
    bus: HookBus
    config: AgentConfig
    system_prompt: str
    messages: list[Message]
    emit: Callable[[Event], None]
    record: Callable[..., Awaitable[None]]
    compact: Callable[[str], Awaitable[Message | None]]
    skip_all: Callable[[list[ToolCall], str], Awaitable[list[Message]]]
    context_tokens: Callable[[], int]
    _limits: Callable[[], tuple[int, int]]

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
        try:
            await self.record(message, announce=not started)
        except asyncio.CancelledError:  # aborted while it was written: it is in the log, and
            await self.skip_all(message.tool_calls, SKIPPED_FOR_ABORT)  # so are its calls' results
            raise
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
        """The branch's model cost so far; None when any call's price was unknown, or when no
        call was made yet and the current model's price is unknown."""
        total, priced_calls = 0.0, 0
        for message in self.messages:
            if message.role == "assistant" and message.usage is not None:
                if message.usage.cost is None:
                    return None
                total += message.usage.cost
                priced_calls += 1
        if not priced_calls and not self.model.info.priced:
            return None
        return total

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
