"""A call that never ran looks the same wherever it is seen: live, reopened, exported, in git;
and a reopened branch shows what the live one did (tool durations, a stopped reply's words and
mark, exported and replayed to an editor too)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support.app_pilot import SIZE, build_app, idle, opened, tools, type_text, until
from support.git_project import git, store_dir
from support.openai_server import OpenAIServer, Reply

from workbench.modes.acp_updates import replay
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


async def test_a_reply_stopped_half_streamed_comes_back_marked_everywhere(project: Path) -> None:
    """The real litellm path over SSE: a reply frozen mid-stream, Esc; its words come back
    marked `(aborted)` live, reopened, exported and in an editor's replay."""
    words = " ".join(f"word{n}" for n in range(60))
    held = Reply(text=words, hold_after=8)
    with OpenAIServer([held]) as server:
        model = {"model": "openai/x", "api_base": server.url, "api_key": "none"}
        app = build_app(project, pictures=False, **model)
        try:
            async with app.run_test(size=SIZE) as pilot:
                await opened(pilot)
                await type_text(pilot, "answer at length")
                await pilot.press("enter")
                streamed = lambda: "".join(view.item.text for view in app.query(ReplyView))  # noqa: E731
                await until(pilot, lambda: "word4" in streamed(), "half the reply", 60)
                await pilot.press("escape")
                await idle(pilot)
                await until(pilot, lambda: "(aborted)" in rendered(app), "the live mark")
                live = streamed()
        finally:
            held.release.set()
        assert "word59" not in live
        again = build_app(project, pictures=False, continue_session=True, **model)
        async with again.run_test(size=SIZE) as pilot:
            await opened(pilot)
            await until(pilot, lambda: "(aborted)" in rendered(again), "the mark, reopened")
            assert live.strip() in rendered(again)
            assert again.workbench is not None
            exported = await again.workbench.export_text(fmt="md")
            replayed = replay(again.workbench.messages(), project)
    assert f"{live}\n\n*(aborted)*" in exported, exported
    editor = "".join(u.content.text for u in replayed if u.session_update == "agent_message_chunk")
    assert editor == f"{live}\n\n(aborted)", "the editor's replay: the words, then the mark"


def rendered(app) -> str:
    return "\n".join(view.source for view in app.query(ReplyView))
