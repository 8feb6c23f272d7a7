"""What the parent learns about one child, folded from the child's JSON event lines.

The child is `workbench --mode json`: a `session` header, then one event per line (see
`workbench.agent.events`, plus the enforcer's `skill_load`). Lines that are not JSON objects are
counted as garbage and the last few kept, so a child that prints nonsense yields a clear failure.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Status = Literal["pending", "running", "completed", "failed"]
LAST_LINES = 3
STREAMED_KEPT = LAST_LINES * 400
"""Characters of a streaming reply kept: enough for its last lines, never the whole reply."""
GARBAGE_KEPT = 3
SKILL_LOAD_FIELDS = ("skill", "layer", "standalone", "verdict", "reason", "suggestion", "blocked")
FINE_VERDICTS = ("ok", "repeat")
"""Verdicts that are no violation; a child's load with any other verdict is reported as one."""


@dataclass
class TokenUsage:
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0

    def add(self, usage: dict[str, Any]) -> None:
        self.input += int(usage.get("input_tokens") or 0)
        self.output += int(usage.get("output_tokens") or 0)
        self.cache_read += int(usage.get("cache_read_tokens") or 0)
        self.cache_write += int(usage.get("cache_write_tokens") or 0)


@dataclass
class ChildReport:
    """One child's run as the parent sees it; `to_dict()` goes into the tool result's details.

    `stop_reason` is the child's own (completed, aborted, error) or ours: `timeout`, `crashed`
    (ended without finishing), `not started`.
    """

    agent: str
    source: str
    task: str
    step: int | None = None
    model: str | None = None
    cwd: str = ""
    status: Status = "pending"
    stop_reason: str | None = None
    error: str | None = None
    answer: str = ""
    turns: int = 0
    usage: TokenUsage = field(default_factory=TokenUsage)
    cost: float | None = None
    skill_loads: list[dict[str, Any]] = field(default_factory=list)
    current_tool: str | None = None
    last_lines: list[str] = field(default_factory=list)
    exit_code: int | None = None
    stderr: str = ""
    garbage: list[str] = field(default_factory=list)
    garbage_count: int = 0
    warm: bool = False
    started_at: float | None = None
    ended_at: float | None = None
    _streamed: str = field(default="", repr=False)

    @property
    def ok(self) -> bool:
        return self.status == "completed"

    @property
    def finished(self) -> bool:
        return self.status in ("completed", "failed")

    @property
    def violations(self) -> list[dict[str, Any]]:
        return [load for load in self.skill_loads if load["verdict"] not in FINE_VERDICTS]

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        del data["_streamed"]
        data["violations"] = self.violations
        return data

    def conclude(self, exit_code: int | None, stderr: str) -> None:
        """Decide the outcome once the child is gone: completed only when the child said so and
        exited cleanly; otherwise failed, with the clearest reason we have."""
        self.exit_code, self.stderr, self.current_tool = exit_code, stderr, None
        if self.stop_reason == "completed" and exit_code in (0, None):
            self.status = "completed"
            return
        self.status = "failed"
        if self.stop_reason is None:
            self.stop_reason = "crashed"
            self.error = f"the child ended without finishing (exit code {exit_code})"
            if self.garbage_count:
                self.error += (
                    f"; {self.garbage_count} output line(s) were not JSON events, the last: "
                    + " | ".join(self.garbage)
                )
        elif self.error is None:
            self.error = f"the child stopped: {self.stop_reason} (exit code {exit_code})"

    def fail(self, stop_reason: str, error: str) -> None:
        """A failure of our own making: timeout, a child that could not start."""
        self.status, self.stop_reason, self.error, self.current_tool = (
            "failed",
            stop_reason,
            error,
            None,
        )

    # -- folding the child's lines ----------------------------------------------------------

    def add_line(self, raw: bytes) -> None:
        """Fold one stdout line in; anything that is not a JSON event counts as garbage."""
        text = raw.decode("utf-8", "replace").strip()
        if not text:
            return
        try:
            event = json.loads(text)
        except ValueError:
            event = None
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            self.garbage_count += 1
            self.garbage = [*self.garbage, text[:200]][-GARBAGE_KEPT:]
            return
        self.apply(event)

    def apply(self, event: dict[str, Any]) -> None:
        handler = _HANDLERS.get(event["type"])
        if handler is not None:
            handler(self, event)

    def _session(self, event: dict[str, Any]) -> None:
        self.model = str(event.get("model") or self.model)

    def _message_start(self, event: dict[str, Any]) -> None:
        self._streamed = ""

    def _message_update(self, event: dict[str, Any]) -> None:
        """A delta of the reply: its last lines are what the progress shows."""
        if event.get("delta_type") == "text" and isinstance(event.get("delta"), str):
            self._streamed = (self._streamed + event["delta"])[-STREAMED_KEPT:]
            self.last_lines = _tail_lines(self._streamed)

    def _message_end(self, event: dict[str, Any]) -> None:
        message = event.get("message") or {}
        if message.get("role") != "assistant":
            return
        self.turns += 1
        if isinstance(message.get("usage"), dict):
            self.usage.add(message["usage"])
        if message.get("text"):
            self.answer = str(message["text"])
            self.last_lines = _tail_lines(self.answer)

    def _usage_update(self, event: dict[str, Any]) -> None:
        cost = event.get("total_cost")
        self.cost = float(cost) if isinstance(cost, (int, float)) else None

    def _tool_start(self, event: dict[str, Any]) -> None:
        self.current_tool = _describe_call(str(event.get("tool_name")), event.get("args") or {})

    def _tool_end(self, event: dict[str, Any]) -> None:
        self.current_tool = None
        result = event.get("result") or {}
        if result.get("text"):
            self.last_lines = _tail_lines(str(result["text"]))

    def _skill_load(self, event: dict[str, Any]) -> None:
        self.skill_loads.append({key: event.get(key) for key in SKILL_LOAD_FIELDS})

    def _error(self, event: dict[str, Any]) -> None:
        hint = f" ({event['hint']})" if event.get("hint") else ""
        self.error = f"{event.get('message')}{hint}"

    def _agent_end(self, event: dict[str, Any]) -> None:
        self.stop_reason = str(event.get("stop_reason"))
        if event.get("error"):
            self.error = str(event["error"])


_HANDLERS = {
    "session": ChildReport._session,
    "message_start": ChildReport._message_start,
    "message_update": ChildReport._message_update,
    "message_end": ChildReport._message_end,
    "usage_update": ChildReport._usage_update,
    "tool_execution_start": ChildReport._tool_start,
    "tool_execution_end": ChildReport._tool_end,
    "skill_load": ChildReport._skill_load,
    "error": ChildReport._error,
    "agent_end": ChildReport._agent_end,
}


def _tail_lines(text: str) -> list[str]:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return [line[:200] for line in lines[-LAST_LINES:]]


def _describe_call(name: str, args: dict[str, Any]) -> str:
    """`bash: rg -n foo`, `read: src/app.py`: what a progress line shows of a running tool."""
    detail = args.get("command") or args.get("path") or ""
    if not isinstance(detail, str) or not detail:
        return name
    first = detail.strip().splitlines()[0] if detail.strip() else ""
    return f"{name}: {first[:80]}"
