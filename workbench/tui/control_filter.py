"""Every line the app draws shows its control characters instead of sending them to the terminal.

Neither Rich nor Textual neutralise them: a reply, a tool's output or a pulled session's name
holding `ESC ]52` would write the user's clipboard through any widget. The filter runs on each
drawn line, after layout, so no widget can forget it; each control character becomes its
picture (`workbench.visible`), and the line is cut back to the width it was laid out at (a
control character takes no cell, its picture one).
"""

from __future__ import annotations

from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

from workbench.visible import CONTROL, visible


class VisibleControls(LineFilter):
    """See the module docstring."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if not CONTROL.search("".join([s.text for s in segments])):
            return segments
        width = Segment.get_line_length(segments)
        shown = [s if s.control else Segment(visible(s.text), s.style) for s in segments]
        return Segment.adjust_line_length(shown, width)


VISIBLE_CONTROLS = VisibleControls()
"""One instance: Textual caches filtered lines per filter."""
