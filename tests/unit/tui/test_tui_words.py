"""The app's words: a report's labels and values say a thing once, counts agree with their
nouns, and usages read as typed."""

from __future__ import annotations

from rich.console import Console, RenderableType

from workbench.agent.costs import UsageTotals
from workbench.sessions.workspaces.status import BranchStatus
from workbench.tui.reports import status_report


def text_of(renderable: RenderableType) -> str:
    console = Console(width=120, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def test_status_says_the_cost_is_unknown_since_the_fork_once() -> None:
    usage = UsageTotals()
    usage.add_tokens({"input_tokens": 10, "output_tokens": 2}, None)
    status = BranchStatus("notes", "main", "abc123", 1, [], {}, 0, False, [], None, None)
    status.usage = usage
    text = text_of(status_report(status))
    line = next(row for row in text.splitlines() if row.lstrip().startswith("cost"))
    assert line.split()[:5] == ["cost", "unknown", "since", "the", "fork"], line
    assert "1 entry since the fork" in text
