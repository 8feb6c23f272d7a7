"""The slash-command completions, listed above the editor while a command is being typed."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from workbench.tui import palette
from workbench.tui.slash import Completion

SHOWN = 8


class CompletionList(Static):
    """Each completion with its help; the chosen one highlighted (Tab or Right takes it)."""

    DEFAULT_CSS = """
    CompletionList { height: auto; padding: 0 2; background: $panel; display: none; }
    CompletionList.-shown { display: block; }
    """

    def show(self, completions: list[Completion], chosen: int) -> None:
        first = max(0, min(chosen - SHOWN + 1, len(completions) - SHOWN))
        text = Text(no_wrap=True, overflow="ellipsis")
        for index in range(first, min(first + SHOWN, len(completions))):
            completion = completions[index]
            style = f"reverse {palette.PRIMARY}" if index == chosen else "bold"
            text.append(f" {completion.label} ", style)
            text.append(f"  {completion.help}", palette.DIM)
            text.append("\n")
        if text.plain:
            text.append("Tab completes · Up/Down choose", palette.DIM)
        self.update(text)
        self.set_class(bool(completions), "-shown")
