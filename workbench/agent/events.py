"""The events the agent and the runtime publish: one stream that every front end renders.

Each event is a plain dataclass whose `type` (a class attribute) names it; `to_dict()` gives the
JSON object that `--mode json` and `--mode rpc` print, with stable snake_case keys. Message events
carry the whole message (`Message.to_dict()`: id, role, text, thinking, tool_calls, tool_call_id,
tool_name, is_error, usage, stop_reason, details, timestamp); tool events carry the call's id, name
and arguments. `AgentEvent` (at the end) is their union; with the enforcer's and extensions'
events it makes `workbench.runtime.events.WorkbenchEvent`, which front ends dispatch with `match`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal, TypeAlias

from workbench.agent.costs import message_totals
from workbench.messages import Message, Usage
from workbench.text import count_of
from workbench.tool import ToolResult

AgentStopReason = Literal["completed", "aborted", "error"]
DeltaType = Literal["text", "thinking", "tool_call"]


def jsonable(value: object) -> object:
    """`value` with messages, results, usages and paths turned into JSON-ready data."""
    if isinstance(value, Message):
        return value.to_dict()
    if isinstance(value, ToolResult):
        return {"text": value.text, "is_error": value.is_error, "details": value.details}
    if isinstance(value, Usage):
        return jsonable(vars(value))
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


def event_dict(event: object) -> dict[str, Any]:
    """Any event as JSON-ready data: ours, or an extension's dataclass with a `type` field (the
    enforcer's `skill_load`, for example)."""
    if isinstance(event, Event):
        return event.to_dict()
    if not is_dataclass(event) or isinstance(event, type):
        raise TypeError(f"an event must be a dataclass with a type, not {event!r}")
    data: dict[str, Any] = {"type": getattr(event, "type", type(event).__name__)}
    data.update((f.name, jsonable(getattr(event, f.name))) for f in fields(event))
    return data


@dataclass
class Event:
    """Base of every event: `type` names it, `to_dict()` serialises it."""

    type: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.type}
        for f in fields(self):
            data[f.name] = jsonable(getattr(self, f.name))
        return data


@dataclass
class AgentStart(Event):
    """A run began (a prompt, or a steer/follow-up while idle)."""

    type: ClassVar[str] = "agent_start"


@dataclass
class TurnStart(Event):
    """One model call and its tool calls begin; `turn` counts from 1 within the run."""

    type: ClassVar[str] = "turn_start"
    turn: int = 1


@dataclass
class MessageStart(Event):
    type: ClassVar[str] = "message_start"
    message: Message


@dataclass
class MessageUpdate(Event):
    """A streamed piece of the assistant message: `delta` is the new text, thinking or tool-call
    argument fragment, `index` the tool call it extends (0 for text and thinking); `message` is
    the message so far, for front ends in this process. On the wire (`to_dict`: JSON and RPC
    modes) an update carries only its delta, so a reply costs its own size in events, not its
    size squared; a tool call's fragments also name the call (`tool_call`: id and name so far)."""

    type: ClassVar[str] = "message_update"
    message: Message
    delta: str
    delta_type: DeltaType = "text"
    index: int = 0

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "type": self.type,
            "delta": self.delta,
            "delta_type": self.delta_type,
            "index": self.index,
        }
        if self.delta_type == "tool_call" and self.index < len(self.message.tool_calls):
            call = self.message.tool_calls[self.index]
            data["tool_call"] = {"id": call.id, "name": call.name}
        return data


@dataclass
class MessageEnd(Event):
    """A message is finished and recorded in the session store."""

    type: ClassVar[str] = "message_end"
    message: Message


@dataclass
class ToolExecutionStart(Event):
    type: ClassVar[str] = "tool_execution_start"
    tool_call_id: str
    tool_name: str
    args: dict[str, Any]


@dataclass
class ToolExecutionUpdate(Event):
    """Partial output of a running tool (bash streams its output so far)."""

    type: ClassVar[str] = "tool_execution_update"
    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    partial_result: str


@dataclass
class ToolExecutionEnd(Event):
    """`skipped`: the call never ran (queued steering, abort, or a truncated reply)."""

    type: ClassVar[str] = "tool_execution_end"
    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    result: ToolResult
    duration_ms: float = 0.0
    skipped: bool = False


@dataclass
class TurnEnd(Event):
    """A turn is over: its reply and the results of that reply's tool calls. An aborted turn
    ends too; `message` is None when it was aborted before the reply was recorded."""

    type: ClassVar[str] = "turn_end"
    message: Message | None
    tool_results: list[Message] = field(default_factory=list)

    @property
    def usage(self) -> dict[str, Any]:
        """What the turn cost: its reply and the sub-agents its calls ran (`UsageTotals`)."""
        recorded = [self.message] if self.message is not None else []
        return message_totals([*recorded, *self.tool_results]).to_json()

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "usage": self.usage}


@dataclass
class AgentEnd(Event):
    """The run ended: `completed`, `aborted` (by the user) or `error` (then `error` says why)."""

    type: ClassVar[str] = "agent_end"
    stop_reason: AgentStopReason
    error: str | None = None


@dataclass
class QueueUpdate(Event):
    """The steering and follow-up queues changed; both are listed in delivery order."""

    type: ClassVar[str] = "queue_update"
    steering: list[str]
    follow_up: list[str]


@dataclass
class CompactionStart(Event):
    """`reason`: `threshold` (context near the window), `overflow` (the provider refused the
    context) or `manual` (`/compact`)."""

    type: ClassVar[str] = "compaction_start"
    reason: str
    tokens_before: int


@dataclass
class CompactionEnd(Event):
    """`message` is the recorded summary (None when compaction failed or had nothing to do)."""

    type: ClassVar[str] = "compaction_end"
    reason: str
    tokens_before: int
    tokens_after: int | None = None
    message: Message | None = None
    error: str | None = None


@dataclass
class RetryStart(Event):
    """A model call failed with a retryable error; the next attempt starts after `delay_ms`.
    `kind`: the error's class (`rate_limit`, `overloaded`, `server`, ...)."""

    type: ClassVar[str] = "retry_start"
    attempt: int
    max_retries: int
    delay_ms: float
    error: str
    kind: str = ""

    def text(self) -> str:
        """What every front end says: a rate limit is the provider asking to wait, not a
        failure."""
        then = f"retry {self.attempt} of {self.max_retries} in {self.delay_ms / 1000:.1f} s"
        if self.kind == "rate_limit":
            return f"Rate-limited by the provider ({self.error}): {then}."
        return f"The model call failed ({self.error}): {then}."


@dataclass
class RetryEnd(Event):
    type: ClassVar[str] = "retry_end"
    attempt: int
    success: bool
    error: str | None = None
    kind: str = ""
    """The class of the error the retries were for."""

    def text(self) -> str:
        tries = count_of(self.attempt, "retry", "retries")
        if not self.success:
            return f"Gave up after {tries}: {self.error}"
        if self.kind == "rate_limit":
            return f"Rate-limited, retried, fine ({tries})."
        return f"The model call failed, then worked ({tries})."


@dataclass
class ErrorEvent(Event):
    """Something failed that the user should see; `hint` says what to do."""

    type: ClassVar[str] = "error"
    message: str
    hint: str | None = None


@dataclass
class Notice(Event):
    """Information for the user only (never sent to the model): skipped extensions, command
    output, hook failures."""

    type: ClassVar[str] = "notice"
    text: str
    level: Literal["info", "warning"] = "info"


@dataclass
class UsageUpdate(Event):
    """After each model call: its usage (tokens incl. cache reads and writes, and its cost), the
    session's cost so far (None when any call's price is unknown), how full the context is, and
    the session's totals (`workbench.agent.costs.UsageTotals.to_json`: input_tokens,
    output_tokens, cache_read_tokens, cache_write_tokens, cost, hit_rate, calls) with the cache
    hit rate of this call (`last_turn_hit_rate`) and of the session (`session_hit_rate`)."""

    type: ClassVar[str] = "usage_update"
    usage: Usage
    total_cost: float | None
    context_tokens: int
    context_window: int
    totals: dict[str, Any] = field(default_factory=dict)
    last_turn_hit_rate: float | None = None
    session_hit_rate: float | None = None


@dataclass
class ModelChange(Event):
    """The session's model; `offline` marks the scripted and demo models."""

    type: ClassVar[str] = "model_change"
    model: str
    offline: bool
    context_window: int


@dataclass
class ApprovalChange(Event):
    """Which tool calls now wait for the user's approval (`never`, `edits`, `all`)."""

    type: ClassVar[str] = "approval_change"
    mode: str


TreeChange = Literal[
    "fork", "navigate", "switch", "merge", "label", "commit", "new", "resume", "continue"
]
"""What changed the tree. `continue`: the first message after navigating to an entry that is not
a branch head started a new branch."""


@dataclass
class TreeUpdate(Event):
    """The runtime's conversation tree changed: re-read `tree()` (and `messages()`, when the
    change moved the current branch or position). `branch` and `entry` are the current position
    afterwards."""

    type: ClassVar[str] = "tree_update"
    reason: TreeChange
    branch: str
    entry: str | None


AgentEvent: TypeAlias = (
    AgentStart
    | TurnStart
    | MessageStart
    | MessageUpdate
    | MessageEnd
    | ToolExecutionStart
    | ToolExecutionUpdate
    | ToolExecutionEnd
    | TurnEnd
    | AgentEnd
    | QueueUpdate
    | CompactionStart
    | CompactionEnd
    | RetryStart
    | RetryEnd
    | ErrorEvent
    | Notice
    | UsageUpdate
    | ModelChange
    | ApprovalChange
)
"""What the agent loop and the runtime publish about a run (the agent's `emit` takes these)."""
