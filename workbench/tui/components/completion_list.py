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
        """One line per completion: a help too long for the width ends in an ellipsis."""
        first = max(0, min(chosen - SHOWN + 1, len(completions) - SHOWN))
        width = max((self.content_size.width or self.app.size.width - 4), 20)
        lines: list[Text] = []
        for index in range(first, min(first + SHOWN, len(completions))):
            completion = completions[index]
            style = f"reverse {palette.PRIMARY}" if index == chosen else "bold"
            line = Text.assemble(
                (f" {completion.label} ", style), (f"  {completion.help}", palette.DIM)
            )
            line.truncate(width, overflow="ellipsis")
            lines.append(line)
        if lines:
            lines.append(Text("Tab completes · Up/Down choose", palette.DIM))
        self.update(Text("\n").join(lines))
        self.set_class(bool(completions), "-shown")
