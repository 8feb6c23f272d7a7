"""Pick a model (`/model` without a name): the session's recent models first, then the configured
ones, then those litellm knows for the keys present. Typing filters the list (every typed word
must appear in the name); Enter takes the highlighted model, or the typed text itself when
nothing matches (any litellm model string, `scripted:PATH`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

from workbench.tui import palette

if TYPE_CHECKING:
    from workbench.agent.models.catalog import ModelChoice

SHOWN = 200
"""At most this many matches are listed: the known models run into the hundreds."""


def matching(choices: list[ModelChoice], typed: str) -> list[ModelChoice]:
    """The choices whose name holds every word typed, in their order (case ignored)."""
    words = typed.lower().split()
    return [c for c in choices if all(word in c.name.lower() for word in words)]


class ModelPicker(ModalScreen[str | None]):
    """See the module docstring. Up/Down move in the list while the typing stays in the box."""

    DEFAULT_CSS = """
    ModelPicker { align: center middle; }
    ModelPicker > Vertical {
        width: 80; height: auto; max-height: 80%; border: thick $primary; background: $surface;
    }
    ModelPicker OptionList { height: auto; max-height: 20; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", show=False),
        Binding("down", "move(1)", show=False, priority=True),
        Binding("up", "move(-1)", show=False, priority=True),
    ]

    def __init__(self, choices: list[ModelChoice], current: str) -> None:
        super().__init__()
        self.choices, self.current = choices, current

    def compose(self) -> ComposeResult:
        with Vertical() as frame:
            frame.border_title = "Model"
            frame.border_subtitle = "type to filter · Enter picks · Esc cancels"
            yield Input(placeholder="a model name, or words of one")
            yield OptionList()

    def on_mount(self) -> None:
        self._show("")
        self.query_one(Input).focus()

    @property
    def shown(self) -> list[str]:
        """The names listed now, top first."""
        options = self.query_one(OptionList)
        return [str(options.get_option_at_index(i).id) for i in range(options.option_count)]

    def _show(self, typed: str) -> None:
        options = self.query_one(OptionList)
        options.clear_options()
        for choice in matching(self.choices, typed)[:SHOWN]:
            label = Text(choice.name, "bold" if choice.source == "recent" else "")
            label.append(f"  {choice.source}", palette.DIM)
            if choice.name == self.current:
                label.append("  (in use)", palette.WARNING)
            options.add_option(Option(label, id=choice.name))
        options.highlighted = 0 if options.option_count else None

    def on_input_changed(self, event: Input.Changed) -> None:
        self._show(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        options = self.query_one(OptionList)
        if options.highlighted is not None:
            self.dismiss(str(options.get_option_at_index(options.highlighted).id))
        else:
            self.dismiss(event.value.strip() or None)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(str(event.option.id))

    def action_move(self, step: int) -> None:
        options = self.query_one(OptionList)
        if options.option_count:
            options.highlighted = ((options.highlighted or 0) + step) % options.option_count

    def action_cancel(self) -> None:
        self.dismiss(None)
