"""The sweep view, driven as a user drives it: `/sweep` typed in the editor starts real runs (child
processes against the local model server), the view shows a row per run and then the variants
best first; Enter, Alt+M and Esc arrive through the terminal's input parser."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.app_pilot import (
    build_app,
    chat_text,
    git,
    opened,
    plain,
    screen_shown,
    terminal_keys,
    until,
)
from support.openai_server import OpenAIServer
from support.sweep_answers import CHECK, slow, writes_its_file
from textual.pilot import Pilot
from textual.widgets import DataTable

from workbench.sweeps.events import SweepProgress, SweepStart
from workbench.sweeps.record import Run, Sweep
from workbench.sweeps.runs import SWEEP_MARKER
from workbench.sweeps.variants import Variant
from workbench.tui.app import WorkbenchApp
from workbench.tui.components.confirm import ConfirmDialog
from workbench.tui.components.report_view import ReportView
from workbench.tui.components.status_view import StatusView
from workbench.tui.sweep.view import SweepView

SIZE = (160, 48)
TWO_VARIANTS = (
    f'/sweep --variant model=openai/good --variant model=openai/bad --jobs 2 --check "{CHECK}"'
    " -- write your file"
)


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as running:
        yield running


def sweep_app(project: Path, server: OpenAIServer) -> WorkbenchApp:
    return build_app(project, model="openai/good", api_base=server.url, api_key="none")


def rows(table: DataTable[Any]) -> list[list[str]]:
    return [[plain(cell).strip() for cell in table.get_row_at(n)] for n in range(table.row_count)]


async def started(pilot: Pilot[Any], command: str) -> SweepView:
    """Type `command` in the editor and send it; the sweep view opens as the runs start."""
    await opened(pilot)
    await terminal_keys(pilot, command + "\r", burst=True)
    view = await screen_shown(pilot, SweepView, "the sweep view", 60)
    await until(pilot, lambda: view.query_one("#runs", DataTable).row_count, "rows")
    return view


async def ended(pilot: Pilot[Any], view: SweepView) -> None:
    app = pilot.app
    assert isinstance(app, WorkbenchApp)
    await until(pilot, lambda: not app.sweep_board.running, "every run to end", 90)
    await pilot.pause(0.1)


def survivors() -> list[int]:
    """Live processes of a sweep this test process started."""
    needle = f"{SWEEP_MARKER}={os.getpid()}-".encode()
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if needle in environ.read_bytes():
                stat = (environ.parent / "stat").read_text().rsplit(")", 1)[1].split()
                if stat[0] != "Z":
                    found.append(int(environ.parent.name))
        except OSError:
            continue
    return found


async def test_a_row_per_run_then_the_best_variant_first_and_enter_opens_the_runs_status(
    project: Path, server: OpenAIServer
) -> None:
    server.add(*[writes_its_file] * 4)
    app = sweep_app(project, server)
    async with app.run_test(size=SIZE) as pilot:
        view = await started(pilot, TWO_VARIANTS)
        runs = view.query_one("#runs", DataTable)
        assert [row[0] for row in rows(runs)] == ["sweep-1.good-1", "sweep-1.bad-1"]
        await ended(pilot, view)
        by_run = {row[0]: row for row in rows(runs)}
        good, bad = by_run["sweep-1.good-1"], by_run["sweep-1.bad-1"]
        assert good[1:2] == ["done"] and good[3] == "300" and good[6] == "✓"
        assert bad[1:2] == ["done"] and bad[6] == "✗ 1"
        variants = rows(view.query_one("#variants", DataTable))
        assert [v[0] for v in variants] == ["★ good", "bad"]
        assert variants[0][1:3] == ["1/1", "100%"] and variants[1][1:3] == ["0/1", "0%"]
        assert "Esc closes" in plain(view.query_one("#keys").render())

        await terminal_keys(pilot, "\r")  # Enter on the first run: its status, then its diff
        await screen_shown(pilot, StatusView, "the run's status")
        status = app.screen
        assert isinstance(status, StatusView) and status.branch == "sweep-1.good-1"
        assert "4 entries since the fork" in plain(status.body)  # written by the run's process
        assert [path for path, _ in status.files] == ["good.txt"]
        await terminal_keys(pilot, "\x1bd")
        await until(pilot, lambda: type(app.screen) is ReportView, "the run's diff")
        assert "+ok" in plain(app.screen.body).replace(" ", "")
        await pilot.press("escape")
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is view, "back to the sweep view")


async def test_alt_m_commits_the_chosen_runs_files_and_merges_them_into_the_branch_swept_from(
    project: Path, server: OpenAIServer
) -> None:
    server.add(*[writes_its_file] * 4)
    app = sweep_app(project, server)
    async with app.run_test(size=SIZE) as pilot:
        view = await started(pilot, TWO_VARIANTS)
        await ended(pilot, view)
        await terminal_keys(pilot, "\x1bm")  # the first run: good
        await screen_shown(pilot, ConfirmDialog, "the merge question")
        assert "Merge sweep-1.good-1 into main?" in str(app.screen.title_text)
        await pilot.press("y")
        await screen_shown(pilot, ConfirmDialog, "the worktree question")
        await pilot.press("n")  # keep the run's worktree
        good = project / "good.txt"
        await until(pilot, good.exists, "the merge", 60)
        merged = "Branch sweep-1.good-1 was merged into main."
        await until(pilot, lambda: merged in chat_text(app), "the merge entry in the chat")
    assert (project / "good.txt").read_text() == "ok\n"  # merged into the user's checkout
    assert not (project / "bad.txt").exists()
    assert "sweep-1: the good run 1" in git(project, "log", "--format=%s", "-3")


async def test_esc_stops_every_run_and_each_keeps_what_it_did_and_resume_runs_them_again(
    project: Path, server: OpenAIServer
) -> None:
    server.add(*[slow] * 2)
    app = sweep_app(project, server)
    command = "/sweep --variant model=openai/a --variant model=openai/b --jobs 2 -- talk a while"
    async with app.run_test(size=SIZE) as pilot:
        view = await started(pilot, command)
        board = app.sweep_board
        await until(
            pilot,
            lambda: board.sweep and all(r.outcome == "running" for r in board.sweep.runs),
            "both runs to stream",
            60,
        )
        await until(pilot, lambda: len(server.requests) == 2, "both runs to ask the model", 60)
        assert "Esc stops every run" in plain(view.query_one("#keys").render())
        await terminal_keys(pilot, "\x1b")
        await until(pilot, lambda: not board.running, "the sweep to stop", 60)
        assert app.screen is view  # still showing what the runs did
        runs = view.query_one("#runs", DataTable)
        assert [row[1] for row in rows(runs)] == ["aborted", "aborted"]
        assert "Stopped: stopped by the user" in plain(view.query_one("#stopped").render())
        assert survivors() == []
        assert app.workbench is not None
        [recorded] = app.workbench.sweep_controls.sweeps()
        assert [r.outcome for r in recorded.runs] == ["aborted", "aborted"]
        assert recorded.stopped == "stopped by the user"
        await terminal_keys(pilot, "\x1b")  # over now: Esc closes the view
        await until(pilot, lambda: not isinstance(app.screen, SweepView), "the view to close")

        server.add(*[writes_its_file] * 4)  # `/sweep --resume` runs what the stop left undone
        await terminal_keys(pilot, "/sweep --resume sweep-1\r", burst=True)
        await screen_shown(pilot, SweepView, "the view again", 60)
        outcomes = lambda: [r.outcome for r in board.sweep.runs] if board.sweep else []  # noqa: E731
        ended = lambda: outcomes() == ["done", "done"] and not board.running  # noqa: E731
        await until(pilot, ended, "the runs to end and be recorded", 90)
        [resumed] = app.workbench.sweep_controls.sweeps()  # the same sweep, not a new one
        assert [r.outcome for r in resumed.runs] == ["done", "done"]


async def test_a_letter_typed_in_the_sweep_view_is_text_for_the_editor_and_slash_sweep_reopens_it(
    project: Path, server: OpenAIServer
) -> None:
    server.add(*[writes_its_file] * 4)
    app = sweep_app(project, server)
    async with app.run_test(size=SIZE) as pilot:
        view = await started(pilot, TWO_VARIANTS)
        await ended(pilot, view)
        await terminal_keys(pilot, "m")  # without Alt: a letter, not a merge
        await until(pilot, lambda: not isinstance(app.screen, SweepView), "the view to close")
        assert app.editor.text == "m" and app.editor.has_focus
        assert not isinstance(app.screen, ConfirmDialog)
        app.editor.replace_text("")
        await terminal_keys(pilot, "/sweep\r", burst=True)
        view = await screen_shown(pilot, SweepView, "the view again")
        runs = view.query_one("#runs", DataTable)
        assert [row[1] for row in rows(runs)] == ["done", "done"]


async def test_a_running_runs_seconds_move_while_its_process_prints_nothing(
    project: Path, server: OpenAIServer
) -> None:
    """Its row is told when its process prints; between, the view counts its seconds on."""
    variants = [Variant("a", "model=openai/a", model="openai/a")]
    run = Run("sweep-1.a-1", "a", 1)
    sweep = Sweep("sweep-1", "s", "main", None, "think long", None, variants, [run], 0.0)
    run.outcome, run.seconds = "running", 4.0
    app = sweep_app(project, server)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        now = [50.0]
        app.sweep_board.clock = lambda: now[0]
        app.on_workbench_event(SweepStart(sweep.to_record(), 1))
        app.on_workbench_event(SweepProgress("sweep-1", run.to_json(), None))
        await screen_shown(pilot, SweepView, "the sweep view")
        view = app.screen
        await until(pilot, lambda: view.is_mounted and view.query("#runs"), "its rows")
        table = view.query_one("#runs", DataTable)
        assert rows(table)[0][5] == "4.0"
        now[0] += 6  # six seconds without a word from the run's process
        await until(pilot, lambda: rows(table)[0][5] == "10.0", "its seconds to move")
        assert rows(table)[0][1] == "running"
