"""The sweep the app shows, kept from the session's sweep events whether or not its view is open,
and drawn as rows: one per run, then the variants best first (the ordering is the record's).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.text import Text

from workbench.sweeps.events import SweepEnd, SweepProgress, SweepStart
from workbench.sweeps.record import Run, Sweep

STATE_STYLES = {
    "queued": "dim",
    "running": "bold cyan",
    "done": "",
    "failed": "bold red",
    "aborted": "yellow",
    "timeout": "yellow",
}
RUN_COLUMNS: tuple[tuple[str, int | None], ...] = (
    ("run", None),
    ("state", 7),
    ("tool", 8),
    ("tokens", 7),
    ("cost", 8),
    ("secs", 5),
    ("check", 5),
)
"""Each column and its width (None: as wide as the runs' names): figures change width as they
grow, and a column sized by its first value would cut them."""
VARIANT_COLUMNS: tuple[tuple[str, int | None], ...] = (
    ("variant", None),
    ("passed", 6),
    ("rate", 5),
    ("mean", 7),
    ("mean cost", 9),
    ("tokens", 7),
)


def _cost(value: float | None) -> str:
    return "?" if value is None else f"${value:.4f}"


def _check(run: Run) -> Text:
    if run.check is None:
        return Text("-", style="dim")
    if run.check.passed:
        return Text("✓", style="bold green")
    return Text(f"✗ {run.check.exit_code}", style="bold red")


class SweepBoard:
    """The latest sweep of the session (None before the first), and whether it still runs."""

    def __init__(self) -> None:
        self.sweep: Sweep | None = None
        self.running = False
        self.tools: dict[str, str | None] = {}
        self.heard: dict[str, float] = {}
        """When each run's figures last came (`clock`): a running run's seconds go on from
        there while its process prints nothing."""
        self.clock: Callable[[], float] = time.monotonic

    def show(self, sweep: Sweep) -> None:
        """A recorded sweep (`/sweep` with nothing running)."""
        self.sweep, self.running, self.tools, self.heard = sweep, False, {}, {}

    def apply(self, event: SweepStart | SweepProgress | SweepEnd) -> None:
        match event:
            case SweepStart():
                self.sweep, self.running = Sweep.from_record(event.sweep), True
                self.tools, self.heard = {}, {}
            case SweepProgress() if self.sweep is not None and self.sweep.id == event.sweep:
                run = Run.from_json(event.run)
                if event.tool == "check":  # its agent is done, its check not yet: not passed
                    run.outcome = "running"
                self.sweep.runs = [run if r.branch == run.branch else r for r in self.sweep.runs]
                self.tools[run.branch] = event.tool
                self.heard[run.branch] = self.clock()
            case SweepEnd() if self.sweep is not None and self.sweep.id == event.sweep:
                self.sweep.runs = [Run.from_json(r) for r in event.comparison["runs"]]
                self.sweep.stopped, self.running, self.tools = event.stopped, False, {}

    def run_row(self, run: Run) -> tuple[str | Text, ...]:
        tool = self.tools.get(run.branch)
        return (
            run.branch,
            Text(run.outcome, style=STATE_STYLES.get(run.outcome, "")),
            tool or "",
            str(run.tokens.total),
            _cost(run.cost),
            self.seconds(run),
            _check(run),
        )

    def seconds(self, run: Run) -> str:
        """The run's seconds; a running one's counted on from its last figures (its process
        may print nothing for a while: the model thinks, a command runs)."""
        seconds = run.seconds
        if self.running and run.outcome == "running" and run.branch in self.heard:
            seconds += self.clock() - self.heard[run.branch]
        return f"{seconds:.1f}"

    def variant_rows(self) -> list[tuple[str | Text, ...]]:
        """The variants best first: pass rate, then mean cost, then mean time (`Sweep.summary`);
        the first, once a run of it passed, is marked the best."""
        if self.sweep is None:
            return []
        rows: list[tuple[str | Text, ...]] = []
        for n, row in enumerate(self.sweep.summary()):
            best = n == 0 and row["passed"] > 0
            mean = row["mean_seconds"]
            tokens = row["mean_tokens"]
            name = Text(f"★ {row['name']}", "bold") if best else Text(f"  {row['name']}")
            rows.append(
                (
                    name,
                    f"{row['passed']}/{row['runs']}",
                    f"{row['pass_rate']:.0%}",
                    "?" if mean is None else f"{mean:.1f}s",
                    _cost(row["mean_cost"]),
                    "?" if tokens is None else f"{tokens:.0f}",
                )
            )
        return rows
