"""The hook bus: the points where extensions (the enforcer among them) see and shape a run.

Each hook has a mutable event object. Handlers run in registration order; each one sees what the
previous ones changed. A handler may be a plain function or a coroutine function. A handler that
raises is reported through `on_error` and skipped, and so is a handler that sets a field to a
value of the wrong type (`block = True` where a reason was meant): that change is undone. One
broken extension cannot stop a run; `on_error` gets a `HookError` that names it.

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
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, get_args

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
HOOK_NAMES: tuple[str, ...] = get_args(HookName)


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
    changes_files: bool = True
    """False: the tool never changes a file (its `Tool.changes_files`)."""


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


@dataclass(frozen=True)
class FieldRule:
    """A field a handler may set (`path`: `block`, or `result.text` inside a field) and what it
    must hold (`must_be` says it in words)."""

    path: str
    accepts: Callable[[Any], bool]
    must_be: str

    @property
    def field(self) -> str:
        return self.path.partition(".")[0]


def _is(*kinds: type) -> Callable[[Any], bool]:
    return lambda value: isinstance(value, kinds)


def _messages(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(m, Message) for m in value)


_MESSAGES = FieldRule("messages", _messages, "a list of messages")
_DETAILS = FieldRule("details", _is(dict), "a dict")
FIELD_RULES: dict[type, tuple[FieldRule, ...]] = {
    InputEvent: (
        FieldRule("text", _is(str), "str"),
        FieldRule("handled", _is(bool), "bool"),
        _DETAILS,
    ),
    BeforeAgentStartEvent: (FieldRule("system_prompt", _is(str), "str"), _MESSAGES),
    ContextEvent: (_MESSAGES,),
    ToolCallEvent: (
        FieldRule("args", _is(dict), "a dict"),
        FieldRule("block", _is(str, type(None)), "a reason (str) or None"),
        _DETAILS,
    ),
    ToolResultEvent: (
        FieldRule("result", _is(ToolResult), "a ToolResult"),
        FieldRule("result.text", _is(str), "str"),
        FieldRule("result.is_error", _is(bool), "bool"),
        FieldRule("result.details", _is(dict), "a dict"),
    ),
}
"""What handlers may change, per event; the other fields are for reading."""


class HookError(Exception):
    """A handler that failed, named: its extension (the file it came from), hook and function."""

    def __init__(self, hook: str, handler: Handler, problem: str) -> None:
        super().__init__(
            f"extension {_owner(handler)}: its {hook} hook handler {_name(handler)} {problem}"
        )


def _owner(handler: Handler) -> str:
    """An extension's file (or package folder) name; our own modules by their dotted name."""
    module_name = getattr(getattr(handler, "__func__", handler), "__module__", None) or "?"
    file = getattr(sys.modules.get(module_name), "__file__", None)
    if file is None or module_name.startswith("workbench."):
        return module_name
    path = Path(file)
    return path.parent.name if path.name == "__init__.py" else path.name


def _name(handler: Handler) -> str:
    return getattr(handler, "__name__", None) or type(handler).__name__


def _value_of(event: Any, path: str) -> Any:
    value = event
    for name in path.split("."):
        value = getattr(value, name, None)
    return value


def _kept(value: Any) -> Any:
    """A copy of a value a handler could change in place (a list, a result), else the value."""
    if isinstance(value, list):
        return list(value)
    if isinstance(value, ToolResult):
        return replace(value)
    return value


def _problem(rule: FieldRule, value: Any) -> str:
    if isinstance(value, list) and rule is _MESSAGES:
        wrong = next(v for v in value if not isinstance(v, Message))
        return f"put a {type(wrong).__name__} into {rule.path}, which must be {rule.must_be}"
    shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
    return f"set {rule.path} to {shown} ({type(value).__name__}), which must be {rule.must_be}"


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
        rules = FIELD_RULES.get(type(event), ())
        for handler in self._handlers[hook]:
            before = {rule.field: _kept(getattr(event, rule.field)) for rule in rules}
            try:
                outcome = handler(event)
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception as exc:  # an extension's bug must not end the run
                if self._on_error is None:
                    raise
                error = HookError(hook, handler, f"failed: {exc!r}")
                error.__cause__ = exc
                self._on_error(hook, error)
                continue
            self._undo_wrong_fields(hook, handler, event, rules, before)
        return event

    def _undo_wrong_fields(
        self,
        hook: str,
        handler: Handler,
        event: HookEvent,
        rules: tuple[FieldRule, ...],
        before: dict[str, Any],
    ) -> None:
        """Put back each field a handler set to a value of the wrong type, and report it."""
        for rule in rules:
            value = _value_of(event, rule.path)
            if rule.accepts(value):
                continue
            setattr(event, rule.field, before[rule.field])
            error = HookError(hook, handler, f"{_problem(rule, value)}; the change was ignored")
            if self._on_error is None:
                raise error
            self._on_error(hook, error)
