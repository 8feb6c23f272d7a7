"""The footer's words and colours: cost known, unknown or none, and context use past 70% / 90%."""

from __future__ import annotations

from rich.text import Text

from workbench.tui import palette
from workbench.tui.components.status_bar import Footing, StatusBar


def footer(**values: object) -> Text:
    bar = StatusBar()
    bar.footing = Footing(**values)  # type: ignore[arg-type]
    return bar.render()


def style_of(text: Text, words: str) -> str:
    start = text.plain.index(words)
    return " ".join(str(s.style) for s in text.spans if s.start <= start < s.end)


def test_cost_reads_as_dollars_unknown_or_none_offline() -> None:
    assert "$0.0123" in footer(model="openai/gpt-4o", cost=0.0123).plain
    assert "cost unknown" in footer(model="openai/custom", cost=None).plain
    assert "no cost" in footer(model="demo", offline=True, cost=0.0).plain


def test_context_use_warns_past_70_and_alarms_past_90_percent() -> None:
    calm = footer(model="m", context_tokens=60_000, context_window=100_000)
    warm = footer(model="m", context_tokens=75_000, context_window=100_000)
    hot = footer(model="m", context_tokens=95_000, context_window=100_000)
    assert "context 60% of 100.0k" in calm.plain and style_of(calm, "context 60%") == ""
    assert palette.WARNING in style_of(warm, "context 75%")
    assert palette.ERROR in style_of(hot, "context 95%")


def test_the_footer_never_contradicts_itself() -> None:
    unknown = footer(model="openai/custom", cost=None).plain
    assert "cost unknown" in unknown and "no cost" not in unknown, unknown
    priced = footer(model="openai/gpt-4o", cost=0.5).plain
    assert "$0.5000" in priced and "no cost" not in priced, priced
    opening = footer().plain
    assert "opening…" in opening and "$" not in opening and "cost" not in opening, opening
