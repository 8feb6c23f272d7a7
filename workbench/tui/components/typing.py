"""Typing is never an action: a printable key pressed in a panel, the chat or a view is text for
the editor, so `/merge exp` typed with the tree focused is text, not a merge.

Panels and the chat are `TypesToEditor`: before the app hands such a key to them, it moves the
focus to the editor (`WorkbenchApp.on_event`), so the key and every key after it in the same
burst (an Enter too) reach the editor, in order. A view, a screen of its own, posts `TypedAway`
with the character and closes."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.message import Message

if TYPE_CHECKING:
    from textual.widget import Widget


class TypedAway(Message):
    """A printable character typed where it cannot be text: it belongs in the editor."""

    def __init__(self, character: str) -> None:
        super().__init__()
        self.character = character


MODIFIERS = {"alt", "ctrl", "super", "meta", "hyper"}


def typed_character(event: events.Key) -> str | None:
    """The character `event` types, or None when it is an action. A key with a modifier is an
    action even when the terminal sends its character too (Alt+S arrives as `alt+s` with the
    character "s")."""
    if not (event.is_printable and event.character):
        return None
    if MODIFIERS.intersection(event.key.split("+")[:-1]):
        return None
    return event.character


class TypesToEditor:
    """A widget whose typed characters are the editor's (see the module docstring)."""


PANEL_HINT = "type to write"
"""Said in a focused panel's subtitle: its action keys take a modifier, letters are text."""


if TYPE_CHECKING:  # the checker sees what the mixin is mixed into; at run time it is a plain class
    _Panel = Widget
else:
    _Panel = object


class TypingPanel(TypesToEditor, _Panel):
    """Mixed into a panel (before its widget class): its letters are the editor's, its actions
    take a modifier, and when it has the focus its title shows it (`show_focus`) and its border
    names its keys (`KEYS_HINT`); without the focus the border shows `resting_hint()`."""

    KEYS_HINT: ClassVar[str] = PANEL_HINT

    def on_focus(self) -> None:  # runs before `has_focus` is set: the panel is told instead
        self.border_subtitle = self.KEYS_HINT
        self.show_focus(True)

    def on_blur(self) -> None:
        self.border_subtitle = self.resting_hint()
        self.show_focus(False)

    def resting_hint(self) -> str:
        """What the border says while another widget has the focus (a legend, or nothing)."""
        return ""

    def show_focus(self, focused: bool) -> None:
        """Redraw the title with (or without) the mark of the focused panel."""
        raise NotImplementedError
