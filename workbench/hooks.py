"""The hook bus: the points where extensions (the enforcer among them) see and shape a run.

Each hook has a mutable event object. Handlers run in registration order; each one sees what the
previous ones changed. A handler may be a plain function or a coroutine function. A handler that
raises is reported through `on_error` and skipped, so one broken extension cannot stop a run.

Hooks, in the order a run meets them:
- `session_start`: a branch's messages were loaded (start, resume, navigate, fork, new); derive
  state from them.
- `input`: the user's text before it becomes a message; rewrite `text`, add `details` for the
  message, or set `handled` to consume it.
- `before_agent_start`: change `system_prompt`, or add `messages` before the run starts.
- `context`: replace `messages`, the list sent to the model on this call.
- `tool_call`: set `block` to a reason to refuse the call (the reason becomes the error result,
  with the event's `details`).
- `tool_result`: patch `result` (text, is_error, details).
- `agent_end`: the run ended with `stop_reason`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from workbench.messages import Message
from workbench.tool import ToolResult

HookName = Literal[
    "session_start",
    "input",
    "before_agent_start",
    "context",
    "tool_call",
    "tool_result",
    "agent_end",
]
HOOK_NAMES: tuple[str, ...] = HookName.__args__  # type: ignore[attr-defined]


@dataclass
class SessionStartEvent:
    messages: list[Message]
    cwd: Path
    reason: Literal["start", "resume", "navigate", "fork", "new"] = "start"


@dataclass
class InputEvent:
    """`text` may be rewritten (it becomes the user message); `details` is stored on that
    message (the enforcer records a `/skill:` load there)."""

    text: str
    handled: bool = False
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class BeforeAgentStartEvent:
    system_prompt: str
    prompt: str
    messages: list[Message] = field(default_factory=list)


@dataclass
class ContextEvent:
    messages: list[Message]


@dataclass
class ToolCallEvent:
    """Set `block` to refuse the call; `details` then goes on the refused call's error result
    (the enforcer records a refused skill load there)."""

    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    cwd: Path
    block: str | None = None
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class ToolResultEvent:
    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    cwd: Path
    result: ToolResult


@dataclass
class AgentEndEvent:
    messages: list[Message]
    stop_reason: str


HookEvent = (
    SessionStartEvent
    | InputEvent
    | BeforeAgentStartEvent
    | ContextEvent
    | ToolCallEvent
    | ToolResultEvent
    | AgentEndEvent
)
Handler = Callable[[Any], Any]


class HookBus:
    """Registers handlers per hook and runs them in order."""

    def __init__(self, on_error: Callable[[str, BaseException], None] | None = None) -> None:
        self._handlers: dict[str, list[Handler]] = {name: [] for name in HOOK_NAMES}
        self._on_error = on_error

    def on(self, hook: HookName, handler: Handler) -> None:
        """Add `handler` to `hook`; an unknown hook name is a programming error."""
        if hook not in self._handlers:
            raise ValueError(f"unknown hook {hook!r}; hooks are {', '.join(HOOK_NAMES)}")
        self._handlers[hook].append(handler)

    def has(self, hook: HookName) -> bool:
        """Whether anything listens on `hook` (lets the loop skip work on hot paths)."""
        return bool(self._handlers[hook])

    async def run(self, hook: HookName, event: HookEvent) -> HookEvent:
        """Run every handler of `hook` on `event` and return the (possibly changed) event."""
        for handler in self._handlers[hook]:
            try:
                outcome = handler(event)
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception as exc:  # an extension's bug must not end the run
                if self._on_error is None:
                    raise
                self._on_error(hook, exc)
        return event
