"""The sweep view: one live row per run (queued, running with its tool, tokens, cost and seconds,
done with its check ✓ or ✗), then the variants best first.

A running run's seconds move once a second, between its process's reports. Enter on a run
opens its branch's status (and from there its diff); Alt+M merges it; Esc stops
every run while they go (each keeps what it did), and closes the view once they are over. A
letter typed here is text: the view closes and the editor takes it. The rows are the app's
`SweepBoard`, kept from the session's events; the view only draws it and asks for actions.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from workbench.text import one_line
from workbench.tui.components.typing import TypedAway, typed_character
from workbench.tui.sweep.board import RUN_COLUMNS, VARIANT_COLUMNS, SweepBoard

SweepAction = Literal["status", "merge", "stop"]

TICK_S = 1.0
"""How often a running run's seconds move (their cells alone are redrawn)."""
RUNNING_KEYS = "↑↓ choose a run · Enter its status and diff · Alt+M merge it · Esc stops every run"
ENDED_KEYS = "↑↓ choose a run · Enter its status and diff · Alt+M merge it · Esc closes"


class SweepView(ModalScreen[None]):
    """See the module docstring; `board` is the app's, redrawn by `redraw` on each event."""

    DEFAULT_CSS = """
    SweepView { align: center middle; }
    SweepView > Vertical {
        width: 96%; height: auto; max-height: 96%; border: thick $primary; background: $surface;
        padding: 0 1;
    }
    SweepView DataTable { height: auto; max-height: 60vh; background: $surface; }
    SweepView #variants { margin-top: 1; max-height: 30vh; }
    SweepView .footer { color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "escape", "Stop / close", show=False),
        Binding("alt+m", "merge", "Merge", show=False),
    ]

    class Requested(Message):
        """`status` (and diff) or `merge` of the run on `branch`; `stop` every run."""

        def __init__(self, action: SweepAction, branch: str | None = None) -> None:
            super().__init__()
            self.action = action
            self.branch = branch

    def __init__(self, board: SweepBoard) -> None:
        super().__init__()
        self.board = board
        self.ready = False
        """Mounted: the tables are there to draw in (an event may come before)."""

    def compose(self) -> ComposeResult:
        with Vertical() as frame:
            frame.border_title = self._title()
            runs: DataTable[object] = DataTable(id="runs", cursor_type="row", zebra_stripes=True)
            for label, width in RUN_COLUMNS:
                runs.add_column(label, width=width, key=label)
            yield runs
            variants: DataTable[object] = DataTable(id="variants", cursor_type="none")
            for label, width in VARIANT_COLUMNS:
                variants.add_column(label, width=width)
            yield variants
            yield Static(id="stopped")
            yield Static(classes="footer", id="keys")

    def on_mount(self) -> None:
        self.ready = True
        self.redraw()
        self.query_one("#runs", DataTable).focus()
        self.set_interval(TICK_S, self.tick)

    def tick(self) -> None:
        """The seconds of the running runs move on, between the events of their processes."""
        sweep = self.board.sweep
        if sweep is None or not self.board.running:
            return
        runs = self.query_one("#runs", DataTable)
        for run in sweep.runs:
            if run.outcome == "running" and run.branch in runs.rows:
                runs.update_cell(run.branch, "secs", self.board.seconds(run))

    def _title(self) -> str:
        sweep = self.board.sweep
        if sweep is None:
            return "Sweep"
        return f"{sweep.id}: {one_line(sweep.prompt, 60)}"

    def redraw(self, branch: str | None = None) -> None:
        """The board as it is now: each run's row updated in place (the cursor stays); with
        `branch`, only that run changed, and the variants only when it ended."""
        sweep = self.board.sweep
        if sweep is None or not self.ready:
            return
        runs = self.query_one("#runs", DataTable)
        for run in sweep.runs:
            if branch is not None and run.branch != branch:
                continue
            cells = self.board.run_row(run)
            if run.branch in runs.rows:
                for column, value in zip(runs.columns, cells, strict=True):
                    runs.update_cell(run.branch, column, value)
            else:
                runs.add_row(*cells, key=run.branch)
        ended = [r for r in sweep.runs if r.branch == branch and r.outcome != "running"]
        if branch is None or ended:
            self._redraw_summary()

    def _redraw_summary(self) -> None:
        sweep = self.board.sweep
        assert sweep is not None
        self.query_one(Vertical).border_title = self._title()
        variants = self.query_one("#variants", DataTable)
        variants.clear()
        for row in self.board.variant_rows():
            variants.add_row(*row)
        stopped = f"Stopped: {sweep.stopped}" if sweep.stopped else ""
        self.query_one("#stopped", Static).update(stopped)
        keys = RUNNING_KEYS if self.board.running else ENDED_KEYS
        self.query_one("#keys", Static).update(keys)

    def chosen(self) -> str | None:
        """The branch of the run under the cursor."""
        runs = self.query_one("#runs", DataTable)
        if not runs.row_count:
            return None
        key, _ = runs.coordinate_to_cell_key(runs.cursor_coordinate)
        return key.value

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.Requested("status", event.row_key.value))

    def action_merge(self) -> None:
        branch = self.chosen()
        if branch is not None:
            self.post_message(self.Requested("merge", branch))

    def action_escape(self) -> None:
        if self.board.running:
            self.post_message(self.Requested("stop"))
        else:
            self.dismiss(None)

    def on_key(self, event: events.Key) -> None:
        character = typed_character(event)
        if character is not None:
            event.stop()
            self.dismiss(None)
            self.app.post_message(TypedAway(character))
