"""The footer: model, tokens, cost, context use, branch and enforcer mode, at a glance."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from workbench.tui import palette

WARN_AT, ERROR_AT = 0.70, 0.90


@dataclass
class Footing:
    """What the footer shows; the app updates it from state snapshots and events."""

    model: str = "opening…"
    offline: bool = False
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = 0.0
    context_tokens: int = 0
    context_window: int = 0
    branch: str = ""
    mode: str = ""
    busy: bool = False
    message: str = ""


def short_count(number: int) -> str:
    if number >= 1_000_000:
        return f"{number / 1_000_000:.1f}M"
    return f"{number / 1000:.1f}k" if number >= 1000 else str(number)


def model_label(name: str) -> str:
    """A scripted model is named by its file, not its whole (often temporary) path."""
    prefix = "scripted:"
    if name.startswith(prefix):
        return prefix + name[len(prefix) :].replace("\\", "/").rsplit("/", 1)[-1]
    return name


class StatusBar(Static):
    """See the module docstring."""

    DEFAULT_CSS = """
    StatusBar { height: 1; background: $panel; padding: 0 1; }
    """

    footing: reactive[Footing] = reactive(Footing, always_update=True)

    def render(self) -> Text:
        f = self.footing
        parts: list[Text] = []
        model = Text(model_label(f.model), "bold")
        if f.offline:
            model.append(" (offline demo)" if f.model == "demo" else " (offline)", palette.DIM)
        parts.append(model)
        parts.append(Text(f"↑{short_count(f.tokens_in)} ↓{short_count(f.tokens_out)}"))
        if f.offline:
            parts.append(Text("no cost", palette.DIM))
        else:
            parts.append(Text("cost unknown" if f.cost is None else f"${f.cost:.4f}"))
        if f.context_window:
            share = f.context_tokens / f.context_window
            style = (
                palette.ERROR if share > ERROR_AT else palette.WARNING if share > WARN_AT else ""
            )
            parts.append(Text(f"context {share:.0%} of {short_count(f.context_window)}", style))
        if f.branch:
            parts.append(Text(f"⎇ {f.branch}", palette.PRIMARY))
        if f.mode:
            parts.append(Text(f"enforcer {f.mode}", palette.ERROR if f.mode == "off" else ""))
        if f.busy:
            parts.append(Text("● working", palette.WARNING))
        if f.message:
            parts.append(Text(f.message, f"bold {palette.WARNING_COLOUR}"))
        return Text(" │ ", "dim").join(parts)

    def change(self, **values: Any) -> None:
        for key, value in values.items():
            setattr(self.footing, key, value)
        self.mutate_reactive(StatusBar.footing)

    def on_workbench_event(self, event: Any) -> None:
        if event.type == "usage_update":
            self.change(
                tokens_in=self.footing.tokens_in + event.usage.input_tokens,
                tokens_out=self.footing.tokens_out + event.usage.output_tokens,
                cost=event.total_cost,
                context_tokens=event.context_tokens,
                context_window=event.context_window,
            )
        elif event.type == "model_change":
            self.change(
                model=event.model, offline=event.offline, context_window=event.context_window
            )
        elif event.type in ("agent_start", "agent_end"):
            self.change(busy=event.type == "agent_start")
