"""The one internal message model, shared by the loop, the store, hooks and front ends.

Messages stay in this form everywhere (log, compaction, replay, hooks) and are converted to a
provider's format only at the model call. It sits beside the hook bus, below the agent, because
hooks (`context`) and extensions (the enforcer) read and write messages too.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Role = Literal["user", "assistant", "tool_result", "notice", "compaction", "branch_summary"]
"""`notice`: a message from workbench or an extension (enforcer notices, steering from hooks);
`compaction` and `branch_summary`: goal-first summaries that stand in for older history."""

StopReason = Literal["stop", "tool_calls", "length", "aborted", "error", "truncated"]


def new_id() -> str:
    """A short, unique, sortable-enough id for messages and tool calls."""
    return uuid.uuid4().hex[:12]


@dataclass
class ToolCall:
    """One tool call of an assistant message; `arguments` is the parsed JSON object."""

    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


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

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with stable snake_case keys."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Message:
        """Rebuild a message from `to_dict` output; unknown keys are ignored."""
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        known["tool_calls"] = [ToolCall(**tc) for tc in known.get("tool_calls") or []]
        usage = known.get("usage")
        known["usage"] = Usage(**usage) if isinstance(usage, dict) else None
        return cls(**known)
