"""Typing is never an action: a printable key pressed in a panel or a view is text for the
editor. The widget posts `TypedAway` with the character; the app moves focus to the editor and
inserts it there, so `/merge exp` typed with the tree focused is text, not a merge."""

from __future__ import annotations

from textual import events
from textual.message import Message
from textual.widget import Widget


class TypedAway(Message):
    """A printable character typed where it cannot be text: it belongs in the editor."""

    def __init__(self, character: str) -> None:
        super().__init__()
        self.character = character


def hand_to_editor(widget: Widget, event: events.Key) -> bool:
    """Forward `event` to the editor when it types a character; True when it did."""
    if not (event.is_printable and event.character):
        return False
    event.stop()
    event.prevent_default()
    widget.post_message(TypedAway(event.character))
    return True


PANEL_HINT = "type to write"
"""Said in a focused panel's subtitle: its action keys take a modifier, letters are text."""
