"""Running one reply's tool calls for the agent loop, in order, each result recorded at once.

Every call of a reply gets exactly one recorded result, even when it never ran: the model's API
refuses a tool call without an answer. A call the user interrupted by steering, by an abort, or
one cut off by the output token limit gets an error result that says so. Unknown tools, invalid
arguments and calls a `tool_call` hook blocks become error results the model reads.

A call the hooks let through then waits for the user's approval when the session's `approval`
asks for it (`workbench.agent.approval`): the user sees the call as the hooks changed it, and a
call the enforcer refused is never asked about. A refusal is the call's error result. Around
each call that runs and may change files, the session's file snapshots are taken
(`file_checkpoints`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from workbench.agent.atomic_steps import run_to_end
from workbench.agent.events import (
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
)
from workbench.agent.queues import MessageQueue
from workbench.agent.state import AgentState
from workbench.agent.tools.arguments import check_arguments
from workbench.errors import WorkbenchError
from workbench.hooks import HookBus, ToolCallEvent, ToolResultEvent
from workbench.messages import Message, ToolCall
from workbench.skipped import SKIPPED_KEY
from workbench.tool import Tool, ToolContext, ToolResult

log = logging.getLogger(__name__)

SKIPPED_FOR_STEERING = "Skipped due to queued user message."
SKIPPED_FOR_ABORT = "Skipped: the run was aborted by the user."
ABORTED_TOOL = "Aborted by the user while running."
LENGTH_LIMITED = (
    "Not executed: the reply hit the output token limit, so these arguments may be incomplete. "
    "Call the tool again with complete arguments."
)


class ToolRunner:
    """Runs the tool calls of the agent's replies (see `workbench.agent.loop`): the tools and their
    folder come from the shared state, steering from its queue."""

    def __init__(self, state: AgentState, bus: HookBus, steering: MessageQueue) -> None:
        self.state = state
        self.bus = bus
        self.steering = steering

    async def run(self, reply: Message) -> list[Message]:
        """Run the reply's tool calls in order; stop early when steering is queued."""
        calls = reply.tool_calls
        if reply.stop_reason == "length":
            return await self.skip_all(calls, LENGTH_LIMITED)
        results: list[Message] = []
        for index, call in enumerate(calls):
            started = time.perf_counter()
            try:
                results.append(await self._execute(call, reply))
            except asyncio.CancelledError:
                ran_ms = (time.perf_counter() - started) * 1000
                await run_to_end(self._answer_aborted(call, calls[index + 1 :], ran_ms))
                raise
            if len(self.steering) and index + 1 < len(calls):
                reason = self.steering.skip_reason() or SKIPPED_FOR_STEERING
                results += await self.skip_all(calls[index + 1 :], reason)
                break
        return results

    async def skip_all(self, calls: list[ToolCall], reason: str) -> list[Message]:
        """Record `reason` as the result of each call, every one of them even when the run is
        aborted meanwhile (see `atomic_steps`)."""
        return await run_to_end(self._skip_each(calls, reason))

    async def _skip_each(self, calls: list[ToolCall], reason: str) -> list[Message]:
        return [await self._skip(call, reason) for call in calls]

    async def _answer_aborted(self, running: ToolCall, rest: list[ToolCall], ran_ms: float) -> None:
        """The calls an abort stopped: the one that was running for `ran_ms` (unless its result
        was already being recorded) and the ones after it."""
        if self.state.messages[-1].tool_call_id != running.id:
            await self._skip(running, ABORTED_TOOL, skipped=False, ran_ms=ran_ms)
        await self._checkpoint()  # what it changed before it was stopped
        await self._skip_each(rest, SKIPPED_FOR_ABORT)

    async def _checkpoint(self, wait: bool = True) -> None:
        """The files recorded now (`wait`), or recorded in their turn while the run goes on."""
        checkpoints = self.state.checkpoints
        if checkpoints is None:
            return
        if wait:
            await checkpoints.checkpoint()
        else:
            checkpoints.checkpoint_soon()

    async def _skip(
        self, call: ToolCall, reason: str, skipped: bool = True, ran_ms: float = 0.0
    ) -> Message:
        """Record an error result for a call that did not run (or did not finish)."""
        if skipped:
            self.state.emit(ToolExecutionStart(call.id, call.name, call.arguments))
        result = ToolResult(reason, is_error=True, details={SKIPPED_KEY: True} if skipped else {})
        end = ToolExecutionEnd(call.id, call.name, call.arguments, result, ran_ms, skipped)
        self.state.emit(end)
        message = _result_message(call, result, None if skipped else ran_ms)
        await self.state.record(message)
        return message

    async def _execute(self, call: ToolCall, reply: Message) -> Message:
        self.state.emit(ToolExecutionStart(call.id, call.name, call.arguments))
        started = time.perf_counter()
        args, result, may_have_changed = await self._outcome(call, reply)
        duration = (time.perf_counter() - started) * 1000
        self.state.emit(ToolExecutionEnd(call.id, call.name, args, result, duration))
        message = _result_message(call, result, duration)
        await self.state.record(message)
        if may_have_changed:
            await self._checkpoint(wait=False)  # made while the model is asked again
        return message

    async def _outcome(
        self, call: ToolCall, reply: Message
    ) -> tuple[dict[str, Any], ToolResult, bool]:
        """The call's (possibly hook-changed) arguments, its result, and whether it ran a tool
        that may change files: unknown tools, invalid arguments, blocked and refused calls
        become error results the model reads."""
        args = call.arguments
        tool = self.state.tools.get(call.name)
        if tool is None:
            available = ", ".join(self.state.tools) or "none"
            text = f"Unknown tool {call.name!r}. Available tools: {available}."
            return args, ToolResult(text, is_error=True), False
        problem = reply.details.get("invalid_arguments", {}).get(call.id) or check_arguments(
            tool.parameters, args
        )
        if problem:
            text = f"Invalid arguments for {call.name}: {problem}"
            return args, ToolResult(text, is_error=True), False
        if self.bus.has("tool_call"):
            gate = ToolCallEvent(call.id, call.name, args, self.state.cwd)
            await self.bus.run("tool_call", gate)
            args = gate.args
            if gate.block:
                return args, ToolResult(gate.block, is_error=True, details=gate.details), False
        context = self._context(call, args)
        refusal = await self._approval(tool, args, context)
        if refusal:
            return args, ToolResult(refusal, is_error=True, details={"approval": "refused"}), False
        if tool.changes_files:
            await self._checkpoint()  # a change made outside the agent is a snapshot of its own
        result = await self._invoke(tool, call, args, context)
        if self.bus.has("tool_result"):
            patched = ToolResultEvent(
                call.id, call.name, args, self.state.cwd, result, tool.changes_files
            )
            await self.bus.run("tool_result", patched)
            result = patched.result
        return args, result, tool.changes_files

    def _context(self, call: ToolCall, args: dict[str, Any]) -> ToolContext:
        def update(text: str) -> None:
            self.state.emit(ToolExecutionUpdate(call.id, call.name, args, text))

        state = self.state
        return ToolContext(
            state.cwd, call.id, update, state.confined_to, state.sandbox, state.approval.ask
        )

    async def _approval(self, tool: Tool, args: dict[str, Any], context: ToolContext) -> str | None:
        """Why the user's approval refused the call, or None: it may run. A call that would fail
        anyway (its description fails) is not asked about: it runs, and fails."""
        approval = self.state.approval
        if tool.describe is None or approval.mode == "never":
            return None
        try:
            request = tool.describe(args, context)
        except WorkbenchError:
            return None
        return await approval.refusal(request, self.steering.arrival)

    async def _invoke(
        self, tool: Tool, call: ToolCall, args: dict[str, Any], context: ToolContext
    ) -> ToolResult:
        try:
            return await tool.execute(args, context)
        except WorkbenchError as exc:
            hint = f"\nHint: {exc.hint}" if exc.hint else ""
            return ToolResult(f"{exc.message}{hint}", is_error=True)
        except Exception as exc:  # a tool's bug becomes an error the model and the user see
            log.exception("tool %s failed", call.name)
            return ToolResult(f"{call.name} failed: {type(exc).__name__}: {exc}", is_error=True)


def _result_message(call: ToolCall, result: ToolResult, duration_ms: float | None) -> Message:
    """The result as recorded; how long the call ran goes with it, so that a reopened branch
    shows the durations the live one did."""
    details = (
        result.details if duration_ms is None else {**result.details, "duration_ms": duration_ms}
    )
    return Message(
        role="tool_result",
        text=result.text,
        tool_call_id=call.id,
        tool_name=call.name,
        is_error=result.is_error,
        details=details,
    )
