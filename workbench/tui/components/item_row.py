"""A live transcript row for a user message, a tool call or a note (replies have their own)."""

from __future__ import annotations

from typing import Generic, TypeVar

from rich.console import RenderableType
from textual.reactive import reactive
from textual.widgets import Static

from workbench.tui.items import Item

ItemT = TypeVar("ItemT", bound=Item, covariant=True)


class ItemRow(Static, Generic[ItemT]):
    """Draws its record: in full, or (tool calls) as one header line until expanded."""

    DEFAULT_CSS = """
    ItemRow { height: auto; }
    ItemRow.-selected { background: $primary 30%; }
    """

    expanded: reactive[bool] = reactive(False)

    def __init__(self, item: ItemT) -> None:
        super().__init__()
        self.item = item

    def render(self) -> RenderableType:
        if self.expanded or self.item.live_full:
            return self.item.full()
        return self.item.live_summary(self.content_size.width)

    def watch_expanded(self) -> None:
        self.refresh(layout=True)

    def changed(self) -> None:
        """The record changed (a tool finished, output arrived): draw it again."""
        self.refresh(layout=True)

    def toggle(self) -> None:
        self.expanded = not self.expanded
