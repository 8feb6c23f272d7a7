"""The app's sweep board, fed the session's sweep events: what each row and the comparison say
while runs go and once they end."""

from __future__ import annotations

from rich.text import Text

from workbench.sweeps.events import SweepEnd, SweepProgress, SweepStart
from workbench.sweeps.record import Check, Run, Sweep, Tokens
from workbench.sweeps.variants import Variant
from workbench.tui.sweep.board import SweepBoard


def started() -> tuple[SweepBoard, Sweep]:
    variants = [Variant("a", "model=a", model="a"), Variant("b", "model=b", model="b")]
    runs = [Run("sweep-1.a-1", "a", 1), Run("sweep-1.b-1", "b", 1)]
    sweep = Sweep("sweep-1", "s", "main", None, "q", "pytest", variants, runs, 0.0)
    board = SweepBoard()
    board.apply(SweepStart(sweep.to_record(), 2))
    return board, sweep


def texts(row: tuple[str | Text, ...]) -> list[str]:
    return [cell.plain if isinstance(cell, Text) else cell for cell in row]


def progress(run: Run, tool: str | None = None) -> SweepProgress:
    return SweepProgress("sweep-1", run.to_json(), tool)


def test_a_run_waiting_for_its_check_is_running_and_not_yet_counted_as_passed() -> None:
    board, sweep = started()
    a = sweep.runs[0]
    a.outcome, a.tokens, a.cost, a.seconds = "done", Tokens(100, 20), 0.01, 3.0
    board.apply(progress(a, "check"))
    assert board.sweep is not None
    assert texts(board.run_row(board.sweep.runs[0]))[:3] == ["sweep-1.a-1", "running", "check"]
    assert [texts(r)[1] for r in board.variant_rows()] == ["0/1", "0/1"]
    assert board.running


def test_once_ended_the_variants_are_best_first_and_the_best_is_starred() -> None:
    board, sweep = started()
    a, b = sweep.runs
    a.outcome, a.check = "done", Check(False, 1, "1 failed")
    b.outcome, b.check, b.tokens, b.cost = "done", Check(True, 0, "ok"), Tokens(10, 5), 0.5
    board.apply(SweepEnd("sweep-1", sweep.to_json(), None))
    assert not board.running
    assert [texts(r)[:3] for r in board.variant_rows()] == [
        ["★ b", "1/1", "100%"],
        ["  a", "0/1", "0%"],
    ]
    rows = [texts(board.run_row(run)) for run in board.sweep.runs]  # type: ignore[union-attr]
    assert [row[6] for row in rows] == ["✗ 1", "✓"]
    assert rows[1][3:5] == ["15", "$0.5000"]


def test_progress_of_another_sweep_changes_nothing() -> None:
    board, _ = started()
    other = Run("sweep-2.a-1", "a", 1, outcome="running")
    board.apply(SweepProgress("sweep-2", other.to_json(), "bash"))
    assert [r.outcome for r in board.sweep.runs] == ["queued", "queued"]  # type: ignore[union-attr]


def test_a_running_runs_seconds_count_on_while_its_process_prints_nothing() -> None:
    board, sweep = started()
    now = [100.0]
    board.clock = lambda: now[0]
    run = sweep.runs[0]
    run.outcome, run.seconds = "running", 2.5
    board.apply(progress(run, "bash"))
    now[0] += 7  # seven seconds of a command that prints nothing
    assert texts(board.run_row(run))[5] == "9.5"
    run.outcome, run.seconds = "done", 12.0
    board.apply(progress(run))
    now[0] += 30
    assert texts(board.run_row(run))[5] == "12.0"  # ended: its own figure, no more counting
