"""The app in the states that the snapshot tests check and the screenshots in docs/ show.

Each scenario prepares the session's model (a scripted file, the offline demo, or the local
OpenAI-compatible server through litellm) and drives the app with Pilot to the state to picture.
Everything in a picture is fixed: scripted text, fixed branch names, no clocks, no ids, no paths.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from support.app_pilot import (
    app_of,
    chat_text,
    idle,
    opened,
    screen_shown,
    tools,
    type_text,
    until,
    write_script,
)
from support.openai_server import OpenAIServer, Reply
from workbench.evals.grading import Graded
from workbench.evals.results import EvalReport, EvalRun
from workbench.evals.saved import save_last
from workbench.evals.uptake import Uptake
from workbench.sweeps.events import SweepProgress, SweepStart
from workbench.sweeps.record import Check, Run, Sweep, Tokens
from workbench.sweeps.variants import Variant
from workbench.tui.components.confirm import ConfirmDialog
from workbench.tui.components.quick_pick import QuickPick
from workbench.tui.components.report_view import ReportView
from workbench.tui.components.status_view import StatusView
from workbench.tui.sweep.view import SweepView

Options = dict[str, Any]
"""`WorkbenchOptions` fields for the session (model, api_base, ...)."""


@dataclass(frozen=True)
class Scenario:
    name: str
    caption: str
    prepare: Callable[[Path, ExitStack], Options]
    drive: Callable[[Pilot[Any]], Awaitable[None]]

    def options(self, project: Path, stack: ExitStack) -> Options:
        """The session's options; the sandbox mode is fixed (the footer shows it) whether or not
        this machine has bubblewrap (the scenarios run no command)."""
        return {"sandbox": "workspace", **self.prepare(project, stack)}


async def ask(pilot: Pilot[Any], text: str) -> None:
    """Type a prompt, send it, wait until the agent has stopped."""
    app = await opened(pilot)
    ended: list[object] = []
    unsubscribe = app.workbench.subscribe(
        lambda e: ended.append(e) if e.type == "agent_end" else None
    )
    await type_text(pilot, text)
    await pilot.press("enter")
    await until(pilot, lambda: ended, "the run to end")
    unsubscribe()
    await idle(pilot)


async def command(pilot: Pilot[Any], text: str) -> None:
    """Run a slash command and wait until it has finished."""
    app = await opened(pilot)
    app.editor.focus()
    app.editor.insert(text)
    await pilot.press("enter")
    await app.workers.wait_for_complete()
    await pilot.pause()


# -- idle: one offline demo exchange ---------------------------------------------------------


def _demo(project: Path, stack: ExitStack) -> Options:
    return {"model": "demo"}


async def _idle(pilot: Pilot[Any]) -> None:
    await ask(pilot, "ship a change")


# -- a reply streaming, with messages queued ---------------------------------------------------

STREAMED = (
    "I'll plan the change first.\n\n## What changes\n\n"
    "- `config.py`: read an empty file as no settings\n- `tests/test_config.py`: a test for it\n\n"
    "## How it is checked\n\nThe new test fails before the change and passes after it, and the "
    "whole suite still passes."
)


def _streaming(project: Path, stack: ExitStack) -> Options:
    reply = Reply(text=STREAMED, hold_after=36)
    server = stack.enter_context(OpenAIServer([reply]))
    stack.callback(reply.release.set)  # let the held reply finish before the server stops
    return {"model": "openai/pictures", "api_base": server.url, "api_key": "none"}


async def _hold(pilot: Pilot[Any]) -> None:
    app = await opened(pilot)
    app.editor.insert("plan the fix for the empty config file")
    await pilot.press("enter")
    transcript = app.transcript
    await until(
        pilot,
        lambda: transcript._reply is not None and "## How it" in transcript._reply.item.text,
        "the reply to stream up to where the server holds it",
    )
    await until(
        pilot, lambda: transcript._reply.writes and not transcript._reply._buffer, "a flush"
    )
    app.editor.insert("keep the old behaviour behind a flag")
    await pilot.press("enter")
    app.editor.insert("then update the README")
    await pilot.press("ctrl+j")
    await until(pilot, lambda: sum(map(len, app.workbench.queues().values())) == 2, "the queues")
    await pilot.pause(0.3)


# -- a skill loaded against the graph --------------------------------------------------------


def _violation(project: Path, stack: ExitStack) -> Options:
    read = {"name": "read", "arguments": {"path": "skills/molecule-implement-change/SKILL.md"}}
    model = write_script(
        project,
        {"text": "I'll go straight to the implementation skill.", "tool_calls": [read]},
        {"text": "Understood: I should start from `compound-ship-change` and its molecules."},
    )
    return {"model": model}


async def _violate(pilot: Pilot[Any]) -> None:
    await ask(pilot, "edit the config loader")


# -- the tree after a fork and a merge ---------------------------------------------------------


async def _fork_and_merge(pilot: Pilot[Any]) -> None:
    await ask(pilot, "ship a change")
    await command(pilot, "/fork try-b")
    await ask(pilot, "plan a change")
    app = app_of(pilot)
    app.editor.insert("/merge try-b")
    await pilot.press("enter")
    await screen_shown(pilot, ConfirmDialog, "the worktree question")
    await pilot.press("y")
    await until(pilot, lambda: not isinstance(app.screen, ConfirmDialog), "the merge")
    await until(pilot, lambda: "try-b was merged into main" in chat_text(app), "the merge")
    await pilot.press("f3")
    await pilot.pause(0.2)


# -- the status view of a branch with changed files ---------------------------------------------


NOTES = "# Notes\n\n- plan the change\n- run the checks before a merge\n"
README = "demo project\n\nRead NOTES.md before you start.\n"


def _branch_work(project: Path, stack: ExitStack) -> Options:
    writes = [
        {"name": "write", "arguments": {"path": "NOTES.md", "content": NOTES}},
        {"name": "write", "arguments": {"path": "README.md", "content": README}},
    ]
    model = write_script(
        project,
        {"text": "Writing the notes.", "tool_calls": writes},
        {"text": "The notes are in NOTES.md; the README points to them."},
    )
    return {"model": model}


async def _status(pilot: Pilot[Any]) -> None:
    await command(pilot, "/fork notes")
    await ask(pilot, "write the notes")
    app = app_of(pilot)
    assert [tool.status for tool in tools(app)] == ["ok", "ok"]
    app.editor.insert("/status")
    await pilot.press("enter")
    await screen_shown(pilot, StatusView, "the status view")
    await pilot.pause(0.2)


# -- the diff of that branch, from its status view ----------------------------------------------


async def _diff(pilot: Pilot[Any]) -> None:
    await _status(pilot)
    app = app_of(pilot)
    await pilot.press("alt+d")
    await until(pilot, lambda: type(app.screen) is ReportView, "the diff view")
    await pilot.pause(0.2)


# -- a question with options: the quick pick ----------------------------------------------------


def _question(project: Path, stack: ExitStack) -> Options:
    text = (
        "The plan: read an empty config file as no settings, and add a test for it.\n\n"
        "How should I go on?\n\n"
        "A) Approve the plan (recommended)\nB) Narrow it to the fix only\n"
        "C) Change the approach\nD) Other: type your own answer"
    )
    return {"model": write_script(project, {"text": text})}


async def _pick(pilot: Pilot[Any]) -> None:
    await ask(pilot, "plan the fix for the empty config file")
    app = app_of(pilot)
    await until(pilot, lambda: app.query_one(QuickPick).has_focus, "the quick pick")


# -- a sweep under way: its view, from the session's sweep events -------------------------------


def _sweep_events() -> list[Any]:
    """A sweep of two models × 2 repeats, told as the runtime tells it: one run passed its
    check, one failed it, one is running `bash`, one waits its turn. Fixed figures, no clock."""
    variants = [
        Variant("gpt-4.1", "model=openai/gpt-4.1", model="openai/gpt-4.1"),
        Variant("claude-sonnet-4-5", "model=anthropic/claude-sonnet-4-5"),
    ]
    runs = [Run(f"sweep-1.{v.name}-{n}", v.name, n) for v in variants for n in (1, 2)]
    question = "fix the failing test in tests/test_dates.py"
    sweep = Sweep("sweep-1", "s", "main", None, question, "pytest -q", variants, runs, 0.0)
    events: list[Any] = [SweepStart(sweep.to_record(), 2)]
    figures = [
        ("done", Check(True, 0, "3 passed"), 17102, 1310, 0.0412, 21.3, None),
        ("done", Check(False, 1, "1 failed"), 16890, 1240, 0.0398, 24.9, None),
        ("running", None, 9210, 611, 0.0301, 12.4, "bash"),
    ]
    for run, (outcome, check, into, out, cost, seconds, tool) in zip(runs, figures, strict=False):
        run.outcome, run.check, run.cost, run.seconds = outcome, check, cost, seconds  # type: ignore[assignment]
        run.tokens = Tokens(into, out)
        events.append(SweepProgress("sweep-1", run.to_json(), tool))
    return events


async def _sweep(pilot: Pilot[Any]) -> None:
    app = await opened(pilot)
    app.sweep_board.clock = lambda: 0.0  # the running run's seconds stay as told
    for event in _sweep_events():
        app.on_workbench_event(event)
    await screen_shown(pilot, SweepView, "the sweep view")
    await pilot.pause(0.2)


# -- a skill's last eval: the `/eval` view ----------------------------------------------------

EVALUATED = "compound-ship-change"


def last_eval(project: Path) -> None:
    """Keep a fixed eval of the example compound as its last one: one case, 3 runs with the
    skill (all pass: the skill loaded at turn 1, its three layers) and 3 without (all fail)."""
    runs = []
    for config, passed in (("with_skill", True), ("without_skill", False)):
        for n in (1, 2, 3):
            check = Graded("check", "python -m pytest -q", "passed" if passed else "failed", "")
            run = EvalRun("fix-dates", config, n, f"sweep-1.fix-dates-{config}-{n}", "done", passed)
            run.graded = [check]
            run.seconds = (20.0 if passed else 12.0) + n
            run.tokens = Tokens(9000 + 400 * n if passed else 6000 + 300 * n, 600)
            run.cost, run.turns, run.tool_calls = (0.03, 6, 9) if passed else (0.02, 4, 5)
            layers = ["compound", "molecule", "atom"] if passed else []
            run.uptake = Uptake(
                passed, 1 if passed else None, [EVALUATED] if passed else [], layers
            )
            runs.append(run)
    case = {"id": "fix-dates", "prompt": "Fix the failing date tests and get the fix merged."}
    save_last(
        project, EvalReport(EVALUATED, [case], ["with_skill", "without_skill"], runs, "sweep-1")
    )


async def _eval(pilot: Pilot[Any]) -> None:
    app = await opened(pilot)
    last_eval(app.workbench.project_root)
    await command(pilot, "/eval")
    await screen_shown(pilot, ReportView, "the eval view")
    await pilot.pause(0.2)


SCENARIOS: dict[str, Scenario] = {
    s.name: s
    for s in (
        Scenario("idle", "After an exchange with the offline demo model", _demo, _idle),
        Scenario(
            "streaming", "A reply streaming, with a steer and a follow-up queued", _streaming, _hold
        ),
        Scenario(
            "violation",
            "A skill loaded against the graph (enforcer in warn mode)",
            _violation,
            _violate,
        ),
        Scenario("tree", "The conversation tree after a fork and a merge", _demo, _fork_and_merge),
        Scenario("status", "The status of a branch that changed two files", _branch_work, _status),
        Scenario("diff", "The diff of a branch, opened from its status view", _branch_work, _diff),
        Scenario(
            "quick-pick", "A question with lettered options as a quick pick", _question, _pick
        ),
        Scenario("sweep", "A sweep of two models, its runs under way", _demo, _sweep),
        Scenario("eval", "A skill's last eval: with and without it, compared", _demo, _eval),
    )
}
