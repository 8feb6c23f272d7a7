"""The one internal message model, shared by the loop, the store, hooks and front ends.

Messages stay in this form everywhere (log, compaction, replay, hooks) and are converted to a
provider's format only at the model call. It sits beside the hook bus, below the agent, because
hooks (`context`) and extensions (the enforcer) read and write messages too.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Role = Literal["user", "assistant", "tool_result", "notice", "compaction", "branch_summary"]
"""`notice`: a message from workbench or an extension (enforcer notices, steering from hooks);
`compaction` and `branch_summary`: goal-first summaries that stand in for older history."""

StopReason = Literal["stop", "tool_calls", "length", "aborted", "error", "truncated"]
TYPED = "typed"
"""The `details` key of a user message an extension rewrote (a `/skill:NAME` command, which
becomes the skill's text and the request): what the user typed, which the chat, the tree and
`git log` show in its place."""


def new_id() -> str:
    """A short, unique, sortable-enough id for messages and tool calls."""
    return os.urandom(6).hex()  # what `uuid.uuid4().hex[:12]` is, without importing uuid


@dataclass
class ToolCall:
    """One tool call of an assistant message; `arguments` is the parsed JSON object."""

    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


def _number(value: Any) -> float | None:
    """A figure given as a number or a numeric string; None when it is not one (a bool, NaN,
    infinity, anything else) or is negative: usage comes from servers and other people's
    sessions, and no count or price is below zero."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        return None
    return float(value)


def token_count(value: Any) -> int | None:
    """A token count as it was given (`12`, `"12"`, `1.5`), rounded; 0 when none was given,
    None when it cannot be read."""
    if value is None:
        return 0
    number = _number(value)
    return None if number is None else round(number)


def usd(value: Any) -> float | None:
    """A price as it was given; None when it is unknown or cannot be read."""
    return None if value is None else _number(value)


USAGE_COUNTS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


@dataclass
class Usage:
    """Token use of one model call, in one vocabulary whatever the provider calls them:
    `input_tokens` are the prompt tokens read neither from nor into the cache (Anthropic's
    `input_tokens`; OpenAI's `prompt_tokens` less its cached ones), `cache_read_tokens` came from
    the provider's prompt cache, `cache_write_tokens` were written to it. `cost` is None when
    the price is unknown (never a fake 0)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost: float | None = None

    @property
    def prompt_tokens(self) -> int:
        """Everything the call sent: uncached input, cache reads and cache writes."""
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens

    @property
    def hit_rate(self) -> float | None:
        """Cache reads over all prompt tokens; None when the call reported none."""
        total = self.prompt_tokens
        return self.cache_read_tokens / total if total else None

    @classmethod
    def read(cls, data: Any) -> Usage | None:
        """A usage as a script, a stored entry or a pulled one holds it (someone else's data):
        counts coerced (see `token_count`); one that cannot be read counts 0 and makes the cost
        unknown, as does a price that cannot be read. None when `data` is no usage at all."""
        if not isinstance(data, dict):
            return None
        counts = {name: token_count(data.get(name)) for name in USAGE_COUNTS}
        cost = None if None in counts.values() else usd(data.get("cost"))
        return cls(**{name: n or 0 for name, n in counts.items()}, cost=cost)


def ending_words(stop_reason: str | None, error: str | None = None) -> str:
    """How a reply that did not end as it should ended, in the words every surface shows (the
    app, exports, an editor's replay): `(aborted)`, `(failed: why)`; "" for one that did."""
    if stop_reason == "aborted":
        return "(aborted)"
    if stop_reason in ("error", "truncated"):
        return f"(failed: {error or 'the model call failed'})"
    return ""


@dataclass
class Message:
    """A user, assistant, tool-result, notice or summary message.

    `details` carries structured data for extensions and front ends (for instance the enforcer's
    skill-load record on a tool result); it is stored with the message but never sent to a model.
    """

    role: Role
    text: str = ""
    id: str = field(default_factory=new_id)
    thinking: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None
    tool_name: str | None = None
    is_error: bool = False
    usage: Usage | None = None
    stop_reason: StopReason | None = None
    details: dict[str, Any] = field(default_factory=dict)
    timestamp: float = field(default_factory=time.time)

    def ending(self) -> str:
        """`ending_words` for this reply (its error from `details`)."""
        error = self.details.get("error")
        return ending_words(self.stop_reason, error if isinstance(error, str) else None)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with stable snake_case keys."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Message:
        """Rebuild a message from `to_dict` output; unknown keys are ignored."""
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        known["tool_calls"] = [ToolCall(**tc) for tc in known.get("tool_calls") or []]
        usage = known.get("usage")
        known["usage"] = Usage.read(usage)
        return cls(**known)
