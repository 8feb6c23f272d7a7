"""The queued messages, listed above the editor in the order the agent will get them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from workbench.agent.events import QueueUpdate
from workbench.tui import palette

if TYPE_CHECKING:
    from workbench.runtime.events import WorkbenchEvent


class QueueList(Static):
    """`Steering: ...` and `Follow-up: ...` lines; hidden while nothing is queued."""

    DEFAULT_CSS = """
    QueueList { height: auto; max-height: 8; padding: 0 2; color: $text-muted; display: none; }
    QueueList.-shown { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.steering: list[str] = []
        self.follow_up: list[str] = []
        self.waiting: str | None = None

    def show(self, steering: list[str], follow_up: list[str], waiting: str | None = None) -> None:
        self.steering, self.follow_up, self.waiting = list(steering), list(follow_up), waiting
        lines = [("Waiting for the session", waiting)] if waiting else []
        lines += [("Steering", t) for t in steering] + [("Follow-up", t) for t in follow_up]
        text = Text(no_wrap=True, overflow="ellipsis")
        for index, (label, message) in enumerate(lines):
            text.append(f"{label}: ", palette.WARNING if label == "Steering" else palette.PRIMARY)
            text.append(" ".join(message.split()))
            if index < len(lines) - 1:
                text.append("\n")
        if steering or follow_up:
            text.append("\n")
            text.append("Alt+Up takes the last one back · Esc stops and returns them", palette.DIM)
        self.update(text)
        self.set_class(bool(lines), "-shown")

    def on_workbench_event(self, event: WorkbenchEvent) -> None:
        if isinstance(event, QueueUpdate):
            self.show(event.steering, event.follow_up, self.waiting)
