"""A call that never ran looks the same wherever it is seen: live, reopened, exported, in git;
and a reopened branch shows what the live one did (tool durations, a stopped reply's mark)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support.app_pilot import SIZE, build_app, idle, opened, tools, type_text, until
from support.git_project import git, store_dir

from workbench.tui.components.reply import ReplyView

SKIPPED = "⊘ skipped: due to queued user message."


def bash(command: str) -> dict:
    return {"name": "bash", "arguments": {"command": command}}


def headers(app) -> list[str]:
    return [tool.header().plain for tool in tools(app)]


async def test_a_skipped_call_has_one_look_live_reopened_exported_and_in_git(
    script, project: Path
) -> None:
    wait = "until [ -f go ]; do sleep 0.02; done"
    model = script(
        {"text": "Running the checks.", "tool_calls": [bash(wait), bash("echo two")]},
        {"text": "Understood."},
    )
    app = build_app(project, pictures=False, model=model)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await type_text(pilot, "run the checks")
        await pilot.press("enter")
        await until(pilot, lambda: tools(app) and tools(app)[0].status == "running", "the tool")
        await type_text(pilot, "use pytest -x")
        await pilot.press("enter")
        await until(pilot, lambda: app.workbench.state().steering, "the steering queue")
        (project / "go").touch()
        await idle(pilot)
        live = headers(app)
    assert live[1].startswith("⊘ bash  echo two") and live[1].endswith(
        "skipped: due to queued user message."
    ), live
    assert live[0].endswith(" s"), f"the call that ran says how long it took: {live[0]}"

    again = build_app(project, pictures=False, model=model, continue_session=True)
    async with again.run_test(size=SIZE) as pilot:
        await opened(pilot)
        assert headers(again) == live, "reopened, the calls read as they did live"

    ref = next(
        line.split()[-1]
        for line in git(store_dir(project), "show-ref").splitlines()
        if line.endswith("/branches/main")
    )
    subjects = git(store_dir(project), "log", "--format=%s", ref).splitlines()
    assert f"tool_result: bash {SKIPPED}" in subjects, subjects
    for kind in ("md", "html"):
        export = subprocess.run(
            [sys.executable, "-m", "workbench", "export", "--format", kind, "-o", "-"],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert export.returncode == 0, export.stderr
        assert f"bash echo two · {SKIPPED}" in export.stdout, kind
        assert "Skipped due to" not in export.stdout.split("echo two · ")[1][:40]


async def test_a_stopped_reply_is_marked_live_and_reopened(script, project: Path) -> None:
    model = script({"text": "A long answer " * 50, "delay_ms": 50})
    app = build_app(project, pictures=False, model=model)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await type_text(pilot, "answer at length")
        await pilot.press("enter")
        await until(pilot, lambda: app.query(ReplyView), "the reply streaming")
        await pilot.press("escape")
        await idle(pilot)
        await until(pilot, lambda: "(aborted)" in rendered(app), "the mark on the live reply")
    again = build_app(project, pictures=False, model=model, continue_session=True)
    async with again.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await until(pilot, lambda: "(aborted)" in rendered(again), "the mark, reopened")


def rendered(app) -> str:
    return "\n".join(view.source for view in app.query(ReplyView))
