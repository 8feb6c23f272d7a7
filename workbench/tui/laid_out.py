"""One layout of the chat per change, not two, and no redrawing of what it did not change.

Textual gives every widget its virtual size at the end of a layout, and the setting asks for a
layout again (`Widget.virtual_size` is a reactive with `layout=True`). For a widget whose virtual
size only that layout decides, the second layout finds what the first found, but it still clears
the widget's measurements and the arrangement of every container above it: all measured, arranged
and drawn again. While a reply streams, each flush grew the reply, the chat and the reply's last
block, so each flush cost two screen layouts, and keystrokes waited behind both.

Here such widgets take their virtual size from the layout, with no second layout and no
repainting either: what a widget draws (its text, or a container's blank frame) depends on its
size, which repaints it when it changes, never on its virtual size. A scrolling container loses
nothing: showing or hiding its scroll bar asks for a layout of its own
(`show_vertical_scrollbar`), and moving its bar redraws the bar.

Scrolling widgets that keep their own virtual size (the panels' trees) redraw their
scroll bars only when their sizes change (`SteadyScrollBars`).
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, TypeVar

from textual.geometry import Size
from textual.reactive import Reactive
from textual.widget import Widget

if TYPE_CHECKING:  # the checker sees what the mixin is mixed into; at run time a plain class,
    from textual.scroll_view import ScrollView as _Scrolling  # so that the CSS stays the widget's
else:
    _Scrolling = object

Laid = TypeVar("Laid", bound=Widget)


def laid_out_size() -> Reactive[Size]:
    """A `virtual_size` for a widget class whose virtual size only the layout sets."""
    return Reactive(Size(0, 0), layout=False, repaint=False)


@cache
def laid_out(widget_class: type[Laid]) -> type[Laid]:
    """`widget_class` taking its virtual size from the layout (same name, so same CSS)."""
    return type(widget_class.__name__, (widget_class,), {"virtual_size": laid_out_size()})


class SteadyScrollBars(_Scrolling):
    """Mixed into a scrolling widget (before its widget class) that keeps its own virtual size
    (its lines): it redraws its scroll bars when its sizes change, not at every layout of the
    screen. Textual hands it the virtual size it measured from the widget's region and compares
    that with the widget's own: they never match, so each flush of a streaming reply redrew the
    scroll bars of both panels beside it."""

    _laid_out_sizes: tuple[Size, Size, Size] | None = None

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        sizes = (size, self.virtual_size, container_size)
        if sizes == self._laid_out_sizes:
            return False
        self._laid_out_sizes = sizes
        return super()._size_updated(size, virtual_size, container_size, layout)
