"""A quick pick for a question asked with lettered options (see `workbench.tui.choices`).

It shows above the editor and takes the focus: a letter picks that option when it is the whole
answer (Enter, or a pause of `LETTER_PAUSE_S` with nothing more typed, after it), Enter picks the
highlighted one (the recommended one to begin with), Up/Down move. An answer that goes on after
its first letter ("Actually…") is free text, never option A. The free-form option, Esc, or simply
typing hands the focus back to the editor, so a free answer is always possible.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget

from workbench.tui import palette
from workbench.tui.choices import Choice, preselected
from workbench.tui.components.typing import typed_character

LETTER_PAUSE_S = 0.6
"""How long a lone letter waits for more typing before it is taken as the pick."""


class QuickPick(Widget, can_focus=True):
    """See the module docstring. Posts `Picked` (an answer) or `Dismissed` (type instead)."""

    DEFAULT_CSS = """
    QuickPick { height: auto; padding: 0 1; border: round $accent; display: none; }
    QuickPick.-shown { display: block; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", show=False),
        Binding("down", "move(1)", show=False),
        Binding("enter", "pick", "Pick", show=False),
        Binding("escape", "dismiss", "Type instead", show=False, priority=True),
    ]

    class Picked(Message):
        def __init__(self, answer: str) -> None:
            super().__init__()
            self.answer = answer

    class Dismissed(Message):
        def __init__(self, typed: str = "") -> None:
            super().__init__()
            self.typed = typed

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.choices: list[Choice] = []
        self.highlighted = 0
        self._held: tuple[str, Timer] | None = None
        """A letter typed as a possible pick, and the pause that will take it."""

    def offer(self, choices: list[Choice]) -> None:
        self.choices, self.highlighted = choices, preselected(choices)
        self.add_class("-shown")
        self.refresh(layout=True)
        self.focus()

    def close(self) -> None:
        self._release()
        self.choices = []
        self.remove_class("-shown")

    def _release(self) -> str:
        """Forget a held letter (its pause stops); the letter, or ''."""
        if self._held is None:
            return ""
        letter, pause = self._held
        pause.stop()
        self._held = None
        return letter

    def render(self) -> Text:
        text = Text()
        for index, choice in enumerate(self.choices):
            mark = "▶ " if index == self.highlighted else "  "
            style = f"bold {palette.PRIMARY}" if index == self.highlighted else ""
            text.append(f"{mark}{choice.letter}  ", style or "bold")
            text.append(choice.text, style)
            if choice.recommended:
                text.append("  (recommended)", palette.SUCCESS)
            text.append("\n")
        text.append("letter or Enter picks · Esc or typing answers freely", palette.DIM)
        return text

    def action_move(self, step: int) -> None:
        self.highlighted = (self.highlighted + step) % len(self.choices)
        self.refresh()

    def action_pick(self) -> None:
        self._release()
        self._choose(self.choices[self.highlighted])

    def _take_held(self) -> None:
        self._held = None
        self._choose(self.choices[self.highlighted])

    def action_dismiss(self) -> None:
        self.close()
        self.post_message(self.Dismissed())

    def _choose(self, choice: Choice) -> None:
        self.close()
        if choice.free_form:
            self.post_message(self.Dismissed())
        else:
            self.post_message(self.Picked(choice.answer))

    def on_key(self, event: events.Key) -> None:
        letters = {c.letter.lower(): c for c in self.choices}
        held = self._held is not None
        character = typed_character(event)
        if not held and character and character.lower() in letters:
            event.stop()
            self.highlighted = self.choices.index(letters[character.lower()])
            self._held = (character, self.set_timer(LETTER_PAUSE_S, self._take_held))
            self.refresh()
        elif character:  # more than a letter: the user's words
            event.stop()
            typed = self._release() + character
            self.close()
            self.post_message(self.Dismissed(typed))
