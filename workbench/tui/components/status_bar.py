"""The footer: model, tokens, cost, cache hit rates, context use, branch, enforcer and sandbox
modes, run state and MCP servers that failed, at a glance."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from workbench.agent.costs import UsageTotals
from workbench.agent.events import (
    AgentEnd,
    AgentStart,
    ApprovalChange,
    ModelChange,
    UsageUpdate,
)
from workbench.text import short_count
from workbench.tui import palette

if TYPE_CHECKING:
    from workbench.runtime.events import WorkbenchEvent

WARN_AT, ERROR_AT = 0.70, 0.90
OPENING = "opening…"


@dataclass
class Footing:
    """What the footer shows; the app updates it from state snapshots and events."""

    model: str = OPENING
    offline: bool = False
    tokens_in: int = 0
    """Every prompt token, cached or not."""
    tokens_out: int = 0
    cost: float | None = 0.0
    hit_last: float | None = None
    """The share of the last call's prompt read from the provider's cache."""
    hit_session: float | None = None
    context_tokens: int = 0
    context_window: int = 0
    branch: str = ""
    mode: str = ""
    approval: str = ""
    """Which tool calls wait for the user's yes; F5 cycles it."""
    sandbox: str = ""
    """The sandbox mode of the tools' commands (`SandboxPolicy.label`)."""
    busy: bool = False
    asking: bool = False
    """The run waits for the user's answer in the permission prompt."""
    message: str = ""
    mcp_failed: list[str] = field(default_factory=list)
    """The MCP servers that did not start (`/mcp` says why)."""


def prompt_tokens(totals: dict[str, Any]) -> int:
    """Every prompt token of usage totals (an event's, a state's): cached or not."""
    return UsageTotals.from_json(totals).prompt_tokens


def model_label(name: str) -> str:
    """A scripted model is named by its file, not its whole (often temporary) path."""
    prefix = "scripted:"
    if name.startswith(prefix):
        return prefix + name[len(prefix) :].replace("\\", "/").rsplit("/", 1)[-1]
    return name


def _state_parts(f: Footing) -> list[Text]:
    """Whether the agent works, and the footer's message."""
    state = "● waiting for you" if f.asking else "● working"
    parts = [Text(state, palette.WARNING)] if f.busy else []
    if f.message:
        parts.append(Text(f.message, f"bold {palette.WARNING_COLOUR}"))
    return parts


class StatusBar(Static):
    """See the module docstring."""

    DEFAULT_CSS = """
    StatusBar { height: 1; background: $panel; padding: 0 1; }
    """

    footing: reactive[Footing] = reactive(Footing, always_update=True)

    def render(self) -> Text:
        """What must stay (branch, run state, enforcer and sandbox modes, a message) always
        shows; on a narrow screen the rest goes first: tokens, then context and cost shortened,
        then the model's name cut with an ellipsis, then all of them."""
        f = self.footing
        width = self.size.width - 2  # (not laid out yet: no width, everything)
        for level in range(5):
            line = Text(" │ ", "dim").join(self._parts(f, level))
            if width < 0 or line.cell_len <= width:
                return line
        line.truncate(width, overflow="ellipsis")
        return line

    @staticmethod
    def _parts(f: Footing, level: int) -> list[Text]:
        """The footer's parts; each `level` above 0 makes the optional ones shorter, and at 4
        only those that must stay are left."""
        parts = _optional_parts(f, level) if level < 4 else []
        if f.branch:
            parts.append(Text(f"⎇ {f.branch}", palette.PRIMARY))
        if level == 4:  # narrowest: the run state and a message before the modes a cut may take
            parts += _state_parts(f)
        if f.mode:
            parts.append(Text(f"enforcer {f.mode}", palette.ERROR if f.mode == "off" else ""))
        if f.approval and (level < 4 or f.approval != "never"):  # (narrowest: only if it asks)
            parts.append(Text(f"approve {f.approval} (F5)" if level < 4 else f"F5 {f.approval}"))
        if f.mcp_failed:
            parts.append(Text(f"✗ MCP {', '.join(f.mcp_failed)}", palette.ERROR))
        if f.sandbox:
            loose = palette.WARNING if f.sandbox == "off" else ""
            parts.append(Text(f"sandbox {f.sandbox}", loose))
        return parts + _state_parts(f) if level < 4 else parts

    def change(self, **values: Any) -> None:
        for key, value in values.items():
            setattr(self.footing, key, value)
        self.mutate_reactive(StatusBar.footing)

    def on_workbench_event(self, event: WorkbenchEvent) -> None:
        match event:
            case UsageUpdate():
                self._usage(event)
            case ModelChange():
                self.change(
                    model=event.model, offline=event.offline, context_window=event.context_window
                )
            case AgentStart():
                self.change(busy=True)
            case AgentEnd():
                self.change(busy=False)
            case ApprovalChange():
                self.change(approval=event.mode)

    def _usage(self, event: UsageUpdate) -> None:
        totals = event.totals
        self.change(
            tokens_in=prompt_tokens(totals),
            tokens_out=totals.get("output_tokens", 0),
            cost=event.total_cost,
            hit_last=event.last_turn_hit_rate,
            hit_session=event.session_hit_rate,
            context_tokens=event.context_tokens,
            context_window=event.context_window,
        )


def _optional_parts(f: Footing, level: int) -> list[Text]:
    """Model, tokens, cost and context: level 0 in full, 1 without tokens, 2 shorter, 3 with
    the model's name cut."""
    name = model_label(f.model)
    if level >= 3 and len(name) > 16:
        name = name[:15] + "…"
    model = Text(name, "bold")
    if f.offline and level < 2:
        model.append(" (offline demo)" if f.model == "demo" else " (offline)", palette.DIM)
    parts = [model]
    if level == 0:
        parts.append(Text(f"↑{short_count(f.tokens_in)} ↓{short_count(f.tokens_out)}"))
    if f.offline:
        if level < 2:
            parts.append(Text("no cost", palette.DIM))
    elif f.model != OPENING:  # no price is known before the model is
        unknown = "cost unknown" if level < 2 else "cost ?"
        parts.append(Text(unknown if f.cost is None else f"${f.cost:.4f}"))
    if f.hit_session is not None and level < 3:
        last = f"{f.hit_last:.0%} last, " if f.hit_last is not None and level < 2 else ""
        parts.append(Text(f"cache {last}{f.hit_session:.0%} all"))
    if f.context_window:
        share = f.context_tokens / f.context_window
        style = palette.ERROR if share > ERROR_AT else palette.WARNING if share > WARN_AT else ""
        size = f" of {short_count(f.context_window)}" if level < 2 else ""
        parts.append(Text(f"context {share:.0%}{size}", style))
    return parts
