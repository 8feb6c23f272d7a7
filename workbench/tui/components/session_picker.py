"""Pick a session of this project to resume (`/resume` without an id): each shows its first
question (or its name), when it was last used and its size."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from workbench.text import count_of, one_line
from workbench.tui import palette

if TYPE_CHECKING:
    from workbench.sessions.store.catalog import SessionInfo


def ago(seconds: float) -> str:
    """How long ago, in the largest whole unit: "just now", "5 min ago", "3 h ago", "2 days ago"."""
    if seconds < 60:
        return "just now"
    for size, unit in ((86400, "day"), (3600, "h"), (60, "min")):
        if seconds >= size:
            count = int(seconds // size)
            return f"{count} {unit}{'s' if unit == 'day' and count != 1 else ''} ago"
    return "just now"


class SessionPicker(ModalScreen[str | None]):
    """Most recent first; Enter resumes, Esc cancels."""

    DEFAULT_CSS = """
    SessionPicker { align: center middle; }
    SessionPicker > Vertical {
        width: 80; height: auto; max-height: 80%; border: thick $primary; background: $surface;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", show=False)]

    def __init__(self, sessions: list[SessionInfo], current: str | None) -> None:
        super().__init__()
        self.sessions, self.current = sessions, current

    def compose(self) -> ComposeResult:
        options = []
        now = time.time()
        for info in self.sessions:
            title = one_line(info.name or info.first_prompt or "(no question yet)", 60)
            label = Text.assemble((title, "bold"))
            if info.id == self.current:
                label.append("  (open now)", palette.WARNING)
            size = count_of(info.entries, "entry", "entries")
            branches = count_of(len(info.branches), "branch", "branches")
            facts = f"\n  {ago(now - info.last_activity)} · {size} · {branches} · {info.id}"
            label.append(facts, palette.DIM)
            options.append(Option(label, id=info.id))
        with Vertical() as frame:
            frame.border_title = "Resume a session"
            yield OptionList(*options)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
