"""The prompt editor: multi-line, Enter sends, slash commands complete as you type.

Enter sends (a steering message while the agent works); Ctrl+J or Alt+Enter queues a follow-up
(every terminal reports Ctrl+J; Alt+Enter only some, see `workbench.tui.alt_enter`).
A newline: Shift+Enter where the terminal reports it (kitty protocol), and everywhere a `\\` at
the end of the line followed by Enter. Tab or Right completes the highlighted slash command;
Up/Down choose among the completions while they show.

Keys that arrive in one burst (a paste without bracketed paste, voice typing, `tmux send-keys
"text" Enter`) are handled in order: Enter and Ctrl+J are handled by the editor itself, in the
same queue as the characters before them, not as app-level bindings that Textual would run ahead
of those characters. Enter or Ctrl+J followed within `BURST_S` by more text is a newline (a pasted
line break: terminals paste one as Enter or as Ctrl+J); one that ends the burst sends. Sending
takes the text out of the editor at once, in the same step, so a key that follows lands in an
empty editor: every character ends up once, in what was sent or in the editor.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from math import inf
from typing import ClassVar, Literal

from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
from textual.timer import Timer
from textual.widgets import TextArea

from workbench.tui.slash import Completion

SubmitKind = Literal["send", "follow_up"]
BURST_S = 0.03
"""An Enter followed this soon by more text is part of a burst (a paste): a newline."""
IN_ORDER: dict[str, SubmitKind | None] = {
    "enter": "send",
    "alt+enter": "follow_up",
    "ctrl+j": "follow_up",
    "shift+enter": None,
}
"""Keys the editor handles in order with the text typed before them (None: a newline)."""


class PromptEditor(TextArea):
    """See the module docstring. Posts `Submitted`, `TakeBack` and `CompletionsChanged`."""

    DEFAULT_CSS = """
    PromptEditor { height: auto; min-height: 3; max-height: 12; border: round $primary 50%; }
    PromptEditor:focus { border: round $primary; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("alt+up", "take_back", "Take back queued", show=False, priority=True),
        Binding("tab", "complete", "Complete", show=False, priority=True),
        Binding("up", "choose(-1)", show=False, priority=True),
        Binding("down", "choose(1)", show=False, priority=True),
    ]

    class Submitted(Message):
        def __init__(self, text: str, kind: SubmitKind) -> None:
            super().__init__()
            self.text = text
            self.kind = kind

    class TakeBack(Message):
        """Alt+Up: the user wants the last queued message back in the editor."""

    class CompletionsChanged(Message):
        def __init__(self, completions: list[Completion], chosen: int) -> None:
            super().__init__()
            self.completions = completions
            self.chosen = chosen

    def __init__(
        self,
        complete: Callable[[str], list[Completion]],
        *,
        cursor_blink: bool = True,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id, soft_wrap=True, show_line_numbers=False, tab_behavior="focus")
        self.cursor_blink = cursor_blink
        self._complete = complete
        self.completions: list[Completion] = []
        self.chosen = 0
        self._pending: tuple[SubmitKind, Timer] | None = None
        """An Enter or Ctrl+J waiting `BURST_S` to see whether more text follows it."""
        self.typed_at = -inf
        """When a key last reached the editor (`time.monotonic()`)."""
        self._styled_theme: object = None
        """The theme that holds the editor's styles as they now are (`render_lines`)."""

    # -- drawing --------------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styled_theme = None

    def render_lines(self, crop: Region) -> list[Strip]:
        """`TextArea` copies its styles into its theme at every draw, half of what drawing a
        keystroke cost: here once for each theme and each change of the editor's styles (focus,
        the app's theme)."""
        if self._styled_theme is self._theme:
            return super(TextArea, self).render_lines(crop)
        self._styled_theme = self._theme
        return super().render_lines(crop)

    # -- completion -----------------------------------------------------------------------------

    def update_suggestion(self) -> None:
        """Keep the completions of a slash command in sync with the text (TextArea's hook)."""
        found = self._complete(self.text) if self.text.startswith("/") else []
        if [c.text for c in found] != [c.text for c in self.completions]:
            self.completions, self.chosen = found, 0
            self.post_message(self.CompletionsChanged(found, 0))
        self._suggest()

    def _suggest(self) -> None:
        at_end = self.cursor_location == self.document.end
        chosen = self.completions[self.chosen] if self.completions else None
        fits = chosen is not None and chosen.text.startswith(self.text) and at_end
        self.suggestion = chosen.text[len(self.text) :] if fits and chosen else ""

    def action_complete(self) -> None:
        if not self.completions:
            self.screen.focus_next()
            return
        self.replace_text(self.completions[self.chosen].text)

    def action_choose(self, step: int) -> None:
        if not self.completions:
            (self.action_cursor_up if step < 0 else self.action_cursor_down)()
            return
        self.chosen = (self.chosen + step) % len(self.completions)
        self.post_message(self.CompletionsChanged(self.completions, self.chosen))
        self._suggest()

    # -- keys, in order ------------------------------------------------------------------------

    async def _on_key(self, event: events.Key) -> None:
        self.typed_at = time.monotonic()
        if self._pending is not None:
            waiting, timer = self._pending
            self._pending = None
            timer.stop()
            if event.is_printable:  # more text at once after Enter: a pasted line break
                self.insert("\n")
            else:
                self.action_submit(waiting)
        if event.key not in IN_ORDER:
            await super()._on_key(event)
            return
        event.stop()
        event.prevent_default()
        kind = IN_ORDER[event.key]
        if kind is None:
            self.action_newline()
        elif event.key == "alt+enter":  # a key no paste holds
            self.action_submit(kind)
        else:
            timer = self.set_timer(BURST_S, lambda: self.call_later(self._burst_ended, timer))
            self._pending = (kind, timer)

    def _burst_ended(self, timer: Timer) -> None:
        """Nothing followed the Enter or Ctrl+J at once: it sends. Run in the editor's queue,
        after any key of the burst already waiting there (a busy machine fires timers late)."""
        if self._pending is not None and self._pending[1] is timer:
            kind, _ = self._pending
            self._pending = None
            self.action_submit(kind)

    # -- editing --------------------------------------------------------------------------------

    def replace_text(self, text: str) -> None:
        """Set the whole text and put the cursor at its end."""
        self.text = text
        self.move_cursor(self.document.end)
        self.update_suggestion()

    def take_text(self) -> None:
        """Empty the editor as one step of its own that Ctrl+Z undoes (Ctrl+C's clear)."""
        self.history.checkpoint()
        self.clear()
        self.history.checkpoint()

    def action_newline(self) -> None:
        self.insert("\n")

    def action_submit(self, kind: SubmitKind) -> None:
        row, column = self.cursor_location
        line = self.document.get_line(row)
        if kind == "send" and column > 0 and line[:column].endswith("\\"):
            self.replace("\n", (row, column - 1), (row, column))
            return
        text = self.text.strip()
        if self.completions and kind == "send" and " " not in text:
            chosen = self.completions[self.chosen].text
            if chosen.endswith(" ") and chosen.strip() != text:
                self.replace_text(chosen)  # the command takes an argument: type it first
                return
            text = chosen.strip()
        if text:
            self.replace_text("")  # now, before the next key: it belongs to the next message
            self.post_message(self.Submitted(text, kind))

    def action_take_back(self) -> None:
        self.post_message(self.TakeBack())
