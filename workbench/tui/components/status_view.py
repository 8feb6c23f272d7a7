"""A branch's status, with its changed files as a list: Enter on a file opens its diff."""

from __future__ import annotations

from typing import ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widget import Widget
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from workbench.tui.components.report_view import ReportView

FOOTER = "↑↓ choose a file · Enter shows its diff · Alt+D the whole diff · Esc closes"


class StatusView(ReportView):
    """`body` is the status report; `files` the changed files as (path, row). The diff itself
    is the app's to fetch: this view posts `DiffRequested`."""

    DEFAULT_CSS = """
    StatusView OptionList, StatusView OptionList:focus {
        height: auto; max-height: 60vh; border: none; padding: 0; background: $surface;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("alt+d", "diff", "Whole diff", show=False)]

    class DiffRequested(Message):
        """Show the diff of `branch`: of one file, or all of it when `path` is None."""

        def __init__(self, branch: str, path: str | None) -> None:
            super().__init__()
            self.branch = branch
            self.path = path

    def __init__(
        self, title: str, body: RenderableType, branch: str, files: list[tuple[str, Text]]
    ) -> None:
        super().__init__(title, body, FOOTER if files else "Esc closes")
        self.branch = branch
        self.files = files

    def compose_body(self) -> ComposeResult:
        yield from super().compose_body()
        if self.files:
            yield OptionList(*(Option(row, id=path) for path, row in self.files))

    def initial_focus(self) -> Widget:
        return self.query_one(OptionList) if self.files else super().initial_focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.DiffRequested(self.branch, event.option.id))

    def action_diff(self) -> None:
        if self.files:
            self.post_message(self.DiffRequested(self.branch, None))
