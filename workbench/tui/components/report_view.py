"""A readable, scrollable view of a report: a status, a diff, a merge, a commit, the help."""

from __future__ import annotations

from typing import ClassVar

from rich.console import RenderableType
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Static

from workbench.tui.components.typing import TypedAway, typed_character


class ReportView(ModalScreen[None]):
    """Esc or Enter closes it (back to the editor); the arrows and PageUp/PageDown scroll. A
    letter typed here closes it too and is written in the editor: typing is never an action."""

    DEFAULT_CSS = """
    ReportView { align: center middle; }
    ReportView > Vertical {
        width: 90%; height: auto; max-height: 90%; border: thick $primary; background: $surface;
        padding: 0 1;
    }
    ReportView VerticalScroll { height: auto; max-height: 100%; }
    ReportView .footer { color: $text-muted; dock: bottom; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,enter", "close", "Close", show=False)]

    def __init__(self, title: str, body: RenderableType, footer: str = "Esc closes") -> None:
        super().__init__()
        self.title_text, self.body, self.footer_text = title, body, footer

    def compose(self) -> ComposeResult:
        with Vertical() as frame:
            frame.border_title = self.title_text
            yield from self.compose_body()
            yield Static(self.footer_text, classes="footer")

    def compose_body(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(self.body)

    def on_mount(self) -> None:
        self.initial_focus().focus()

    def initial_focus(self) -> Widget:
        return self.query_one(VerticalScroll)

    def action_close(self) -> None:
        self.dismiss(None)

    def on_key(self, event: events.Key) -> None:
        character = typed_character(event)
        if character is not None:
            event.stop()
            self.dismiss(None)
            self.app.post_message(TypedAway(character))
