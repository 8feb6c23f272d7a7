"""The finished part of the transcript, drawn line by line.

A long session holds thousands of entries; mounting a widget for each (let alone a Markdown
widget) takes seconds. History is one widget that keeps the records and renders only the lines
the screen shows: a record takes a few collapsed lines (`Item.summary()`), or its full form when
the user expands it. Line offsets are prefix sums, so finding the record of a line is a bisect.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from itertools import accumulate
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from workbench.tui.items import Item

CACHE_LIMIT = 2_000
"""Rendered records kept; the screen shows a few dozen at a time."""


class History(Widget):
    """Finished transcript records; `cursor` is the selected record, `expanded` the open ones."""

    DEFAULT_CSS = """
    History { height: auto; }
    History > .history--cursor { background: $primary 30%; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"history--cursor"}

    class Clicked(Message):
        """The user clicked a record."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: list[Item] = []
        self.expanded: set[int] = set()
        self.cursor: int | None = None
        self._heights: list[int] = []
        self._offsets: list[int] = [0]
        self._laid_out_width = 0
        self._rendered: dict[tuple[int, int, bool, bool], list[Strip]] = {}

    # -- records ------------------------------------------------------------------------------

    def extend(self, items: Iterable[Item]) -> None:
        added = list(items)
        if not added:
            return
        self.items.extend(added)
        for item in added:
            self._heights.append(len(item.summary()))
            self._offsets.append(self._offsets[-1] + self._heights[-1])
        self.refresh(layout=True)

    def clear(self) -> None:
        self.items, self.expanded, self.cursor = [], set(), None
        self._heights, self._offsets = [], [0]
        self._rendered.clear()
        self.refresh(layout=True)

    def toggle(self, index: int) -> None:
        """Expand a collapsed record or collapse an expanded one."""
        if not self.items[index].expandable and index not in self.expanded:
            return
        self.expanded ^= {index}
        self._heights[index] = len(self._strips(index, self._laid_out_width or self.size.width))
        self._reflow()

    def select(self, index: int | None) -> None:
        self.cursor = index
        self.refresh()

    def span(self, index: int) -> tuple[int, int]:
        """The first line and the height of a record."""
        return self._offsets[index], self._heights[index]

    # -- layout and drawing -------------------------------------------------------------------

    def _reflow(self) -> None:
        self._sum_heights()
        self.refresh(layout=True)

    def _sum_heights(self) -> None:
        self._offsets = list(accumulate(self._heights, initial=0))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """Measured in the layout under way: asking for another would lay the screen out twice."""
        if width != self._laid_out_width:
            self._laid_out_width = width
            if self.expanded:
                for index in self.expanded:
                    self._heights[index] = len(self._strips(index, width))
                self._sum_heights()
        return self._offsets[-1]

    def render_line(self, y: int) -> Strip:
        if not self.items or y >= self._offsets[-1]:
            return Strip.blank(self.size.width, self.rich_style)
        index = bisect_right(self._offsets, y) - 1
        lines = self._strips(index, self.size.width)
        line = y - self._offsets[index]
        return lines[line] if line < len(lines) else Strip.blank(self.size.width, self.rich_style)

    def _strips(self, index: int, width: int) -> list[Strip]:
        expanded = index in self.expanded
        selected = index == self.cursor
        key = (index, width, expanded, selected)
        cached = self._rendered.get(key)
        if cached is not None:
            return cached
        if len(self._rendered) > CACHE_LIMIT:
            self._rendered.clear()
        item = self.items[index]
        base = self.rich_style
        if expanded:
            console = self.app.console
            options = console.options.update(width=max(width, 1), height=None)
            rendered = console.render_lines(item.full(), options, style=base, pad=True)
            lines = [Strip(segments, width) for segments in rendered]
        else:
            lines = [self._line(text, width, base) for text in item.fitted(width)]
        if selected:
            cursor = self.get_component_rich_style("history--cursor")
            lines = [styled_over(line, cursor) for line in lines]
        self._rendered[key] = lines
        return lines

    def _line(self, text: Text, width: int, base: Style) -> Strip:
        line = text.copy()
        line.truncate(width, overflow="ellipsis")
        segments = [
            Segment(s.text, base + s.style if s.style else base)
            for s in line.render(self.app.console)
        ]
        return Strip(segments).adjust_cell_length(width, base)

    def on_click(self, event: events.Click) -> None:
        if self.items and 0 <= event.y < self._offsets[-1]:
            self.post_message(self.Clicked(bisect_right(self._offsets, event.y) - 1))

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._rendered.clear()


def styled_over(line: Strip, style: Style) -> Strip:
    """`line` with `style` on top of its own styles (`Strip.apply_style` puts it under)."""
    return Strip(
        [Segment(text, (own + style) if own else style, ctrl) for text, own, ctrl in line],
        line.cell_length,
    )
