"""Pick a session of this project to resume (`/resume` without an id)."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from workbench.tui import palette


class SessionPicker(ModalScreen[str | None]):
    """Most recent first; Enter resumes, Esc cancels."""

    DEFAULT_CSS = """
    SessionPicker { align: center middle; }
    SessionPicker > Vertical {
        width: 80; height: auto; max-height: 80%; border: thick $primary; background: $surface;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", show=False)]

    def __init__(self, sessions: list[Any], current: str | None) -> None:
        super().__init__()
        self.sessions, self.current = sessions, current

    def compose(self) -> ComposeResult:
        options = []
        for info in self.sessions:
            label = Text.assemble((info.name or "(unnamed)", "bold"), (f"  {info.id}", palette.DIM))
            if info.id == self.current:
                label.append("  (open now)", palette.WARNING)
            options.append(Option(label, id=info.id))
        with Vertical() as frame:
            frame.border_title = "Resume a session"
            yield OptionList(*options)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
