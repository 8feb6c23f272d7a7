"""What the loop needs from a model: a stream of deltas for a request, and facts about the model.

Every model (litellm, scripted, demo) implements `ModelClient`. A stream yields text, thinking and
tool-call fragments, then one `Finish`; a stream that ends without `Finish` was cut off. Failures
raise `ModelError` with a `kind` the loop uses to decide between retrying, compacting and giving up.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from workbench.messages import Message, StopReason, ToolCall, Usage, new_id
from workbench.tool import Tool

DEFAULT_CONTEXT_WINDOW = 128_000
"""Assumed when neither litellm nor the settings know a model's window."""


@dataclass
class ModelInfo:
    """A model's name, whether it runs offline, its context window and price (USD per token;
    None when unknown, so that cost shows as unknown rather than zero). Cache reads and writes
    have their own prices (Anthropic: a tenth of the input price, and a quarter more than it);
    where the map names none, a cached token costs what an input token costs. `cache_style`
    says how the model is asked to cache: `anthropic` (explicit `cache_control` breakpoints),
    `key` (automatic caching steered by `prompt_cache_key`) or None."""

    name: str
    offline: bool = False
    context_window: int = DEFAULT_CONTEXT_WINDOW
    input_cost: float | None = None
    output_cost: float | None = None
    cache_read_cost: float | None = None
    cache_write_cost: float | None = None
    cache_style: Literal["anthropic", "key"] | None = None

    @property
    def priced(self) -> bool:
        """Whether a call's cost can be known (offline models cost nothing)."""
        return self.offline or (self.input_cost is not None and self.output_cost is not None)

    def cost(self, usage: Usage) -> float | None:
        """The call's cost in USD; None when the model has no price (never a made-up $0). An
        offline model costs nothing unless the settings price it (as tests of costs do)."""
        if self.input_cost is None or self.output_cost is None:
            return 0.0 if self.offline else None
        read = self.cache_read_cost if self.cache_read_cost is not None else self.input_cost
        write = self.cache_write_cost if self.cache_write_cost is not None else self.input_cost
        return (
            usage.input_tokens * self.input_cost
            + usage.cache_read_tokens * read
            + usage.cache_write_tokens * write
            + usage.output_tokens * self.output_cost
        )


@dataclass
class ModelRequest:
    """One model call. `purpose` lets offline models answer side requests sensibly: a summary
    (compaction, branch and merge summaries) or a commit message draft."""

    system_prompt: str
    messages: list[Message]
    tools: list[Tool] = field(default_factory=list)
    purpose: Literal["turn", "summary", "commit_message"] = "turn"
    max_tokens: int | None = None
    system_suffix: str = ""
    """What follows the system prompt but differs per workspace (the working folder): sent after
    the cached prefix, so that forks in other worktrees share the cache."""
    cache_key: str | None = None
    """A stable key for providers that cache by themselves (`prompt_cache_key`): the session."""

    @property
    def full_system_prompt(self) -> str:
        """The system prompt as one text: the prompt, then the suffix."""
        if not self.system_suffix:
            return self.system_prompt
        return f"{self.system_prompt.rstrip()}\n\n{self.system_suffix.strip()}\n"


@dataclass
class TextDelta:
    text: str


@dataclass
class ThinkingDelta:
    text: str


@dataclass
class ToolCallDelta:
    """A fragment of the tool call at `index`: id and name arrive once, arguments in pieces."""

    index: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""


@dataclass
class Finish:
    """The end of a complete stream. `reason` is None when the provider never said why it stopped
    (the loop then treats the reply as cut off)."""

    reason: StopReason | None
    usage: Usage | None = None


Delta = TextDelta | ThinkingDelta | ToolCallDelta | Finish

ErrorKind = Literal[
    "rate_limit",
    "overloaded",
    "server",
    "connection",
    "timeout",
    "context_overflow",
    "auth",
    "bad_request",
    "other",
]
RETRYABLE_KINDS: frozenset[str] = frozenset(
    {"rate_limit", "overloaded", "server", "connection", "timeout"}
)


class ModelError(Exception):
    """A failed model call, classified; `retry_after` is the server's hint in seconds, `hint`
    what the user can do about it (shown as `WorkbenchError`'s is)."""

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        retry_after: float | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.retry_after = retry_after
        self.hint = hint

    @property
    def retryable(self) -> bool:
        return self.kind in RETRYABLE_KINDS


class ModelClient(Protocol):
    info: ModelInfo

    def stream(self, request: ModelRequest) -> AsyncIterator[Delta]:
        """Stream one reply; cancelling the iteration closes the connection."""
        ...


def model_record(model: ModelClient) -> dict[str, str]:
    """What a reply records of the model that wrote it, so that a reopened session can use it
    again: its name and, for a server, its endpoint. Never the key."""
    record = {"name": model.info.name}
    endpoint = getattr(model, "api_base", None)  # only models reached over HTTP have one
    if isinstance(endpoint, str) and endpoint:
        record["api_base"] = endpoint
    return record


@dataclass
class _PendingCall:
    id: str = ""
    name: str = ""
    arguments: str = ""


class AssistantAssembler:
    """Builds the assistant message from deltas: tool-call fragments are joined by index and their
    arguments parsed once complete."""

    def __init__(self) -> None:
        self.message = Message(role="assistant")
        self.finish: Finish | None = None
        self._calls: dict[int, _PendingCall] = {}

    def add(self, delta: Delta) -> tuple[str, Literal["text", "thinking", "tool_call"], int] | None:
        """Apply a delta; return the (piece, kind, index) to publish, or None for `Finish`. The
        index is the tool call a fragment extends (its place in `message.tool_calls`), else 0."""
        if isinstance(delta, TextDelta):
            self.message.text += delta.text
            return delta.text, "text", 0
        if isinstance(delta, ThinkingDelta):
            self.message.thinking += delta.text
            return delta.text, "thinking", 0
        if isinstance(delta, ToolCallDelta):
            call = self._calls.setdefault(delta.index, _PendingCall())
            if delta.id:
                call.id = delta.id
            if delta.name:
                call.name += delta.name
            call.arguments += delta.arguments
            order = sorted(self._calls)
            self.message.tool_calls = [
                ToolCall(id=self._calls[i].id, name=self._calls[i].name) for i in order
            ]
            return delta.arguments, "tool_call", order.index(delta.index)
        self.finish = delta
        return None

    def complete(self) -> Message:
        """The finished message: stop reason, usage and parsed tool calls. Arguments that are not
        a JSON object are recorded in `details["invalid_arguments"]` for the loop to report."""
        message = self.message
        calls: list[ToolCall] = []
        invalid: dict[str, str] = {}
        for _, pending in sorted(self._calls.items()):
            call_id = pending.id or f"call_{new_id()}"
            arguments, problem = parse_arguments(pending.arguments)
            if problem:
                invalid[call_id] = f"{problem}; received: {pending.arguments[:200]!r}"
            calls.append(ToolCall(id=call_id, name=pending.name, arguments=arguments))
        message.tool_calls = calls
        if invalid:
            message.details["invalid_arguments"] = invalid
        if self.finish is not None:
            message.usage = self.finish.usage
            reason = self.finish.reason
            if reason in ("stop", "tool_calls"):
                reason = "tool_calls" if calls else "stop"
            message.stop_reason = reason
        return message


def parse_arguments(raw: str) -> tuple[dict[str, Any], str | None]:
    """Tool-call arguments as a dict, and what is wrong with them (None when they are fine)."""
    if not raw.strip():
        return {}, None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return {}, f"arguments are not valid JSON ({exc.msg} at position {exc.pos})"
    if not isinstance(value, dict):
        return {}, f"arguments must be a JSON object, not {type(value).__name__}"
    return value, None
