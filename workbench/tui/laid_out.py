"""One layout of the chat per change, not two.

Textual gives every widget its virtual size at the end of a layout, and the setting asks for a
layout again (`Widget.virtual_size` is a reactive with `layout=True`). For a widget whose virtual
size only that layout decides, the second layout finds what the first found, but it still clears
the widget's measurements and the arrangement of every container above it: all measured, arranged
and drawn again. While a reply streams, each flush grew the reply, the chat and the reply's last
block, so each flush cost two screen layouts, and keystrokes waited behind both.

Here such widgets take their virtual size from the layout and are repainted, with no second
layout. A scrolling container loses nothing: showing or hiding its scroll bar asks for a layout
of its own (`show_vertical_scrollbar`).
"""

from __future__ import annotations

from functools import cache
from typing import TypeVar

from textual.geometry import Size
from textual.reactive import Reactive
from textual.widget import Widget

Laid = TypeVar("Laid", bound=Widget)


def laid_out_size() -> Reactive[Size]:
    """A `virtual_size` for a widget class whose virtual size only the layout sets."""
    return Reactive(Size(0, 0), layout=False)


@cache
def laid_out(widget_class: type[Laid]) -> type[Laid]:
    """`widget_class` taking its virtual size from the layout (same name, so same CSS)."""
    return type(widget_class.__name__, (widget_class,), {"virtual_size": laid_out_size()})
