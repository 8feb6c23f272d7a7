"""The drafted commit message, for the user to read, edit and accept (or drop) before it commits."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea

HINT = "Ctrl+S commit with this message · Esc commit nothing · the first line is the subject"


class CommitDraft(ModalScreen[str | None]):
    """Answers the edited message (Ctrl+S), or None (Esc); an emptied message is not accepted."""

    DEFAULT_CSS = """
    CommitDraft { align: center middle; }
    CommitDraft > Vertical {
        width: 90%; max-width: 100; height: auto; max-height: 90%;
        padding: 1 2; border: thick $primary; background: $surface;
    }
    CommitDraft .title { text-style: bold; }
    CommitDraft TextArea { height: auto; min-height: 5; max-height: 20; margin-top: 1; }
    CommitDraft .hint { color: $text-muted; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "accept", "Commit", show=False, priority=True),
        Binding("escape", "cancel", "Cancel", show=False),
    ]

    def __init__(self, branch: str, draft: str) -> None:
        super().__init__()
        self.branch, self.draft = branch, draft

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"Commit the changes on {self.branch}", classes="title")
            yield TextArea(self.draft, id="message", soft_wrap=True, tab_behavior="focus")
            yield Static(HINT, classes="hint", id="hint")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_accept(self) -> None:
        message = self.query_one(TextArea).text.strip()
        if not message:
            self.query_one("#hint", Static).update("The message is empty: write one, or Esc.")
            return
        self.dismiss(message)

    def action_cancel(self) -> None:
        self.dismiss(None)
