"""Ask for one line of text (a branch name, a label, a commit message, a model)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class TextPrompt(ModalScreen[str | None]):
    """Enter answers (an empty answer is allowed when `allow_empty`); Esc cancels (None)."""

    DEFAULT_CSS = """
    TextPrompt { align: center middle; }
    TextPrompt > Vertical {
        width: 70; height: auto; padding: 1 2; border: thick $primary; background: $surface;
    }
    TextPrompt .title { text-style: bold; }
    TextPrompt .hint { color: $text-muted; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", show=False)]

    def __init__(
        self, title: str, hint: str = "", value: str = "", allow_empty: bool = False
    ) -> None:
        super().__init__()
        self.title_text, self.hint, self.value, self.allow_empty = title, hint, value, allow_empty

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, classes="title")
            yield Input(self.value, id="answer")
            if self.hint:
                yield Static(self.hint, classes="hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.value.strip() or self.allow_empty:
            self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)
