"""Alt+Up takes back the message queued last, whichever queue it is in (as the queue's hint
says: "Alt+Up takes the last one back")."""

from __future__ import annotations

from pathlib import Path

from support.app_pilot import SIZE, busy, idle, opened, type_text, until


async def test_alt_up_takes_back_the_last_queued_message_of_either_kind(
    make_app, script, project: Path
) -> None:
    wait = {"name": "bash", "arguments": {"command": "until [ -f go ]; do sleep 0.02; done"}}
    app = make_app(script({"text": "Working.", "tool_calls": [wait]}, {"text": "ok"}))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await type_text(pilot, "start")
        await pilot.press("enter")
        await until(pilot, lambda: busy(app), "the run to start")
        await type_text(pilot, "later please")
        await pilot.press("ctrl+j")
        await until(pilot, lambda: app.workbench.queues()["follow_up"], "the follow-up")
        await type_text(pilot, "now this")
        await pilot.press("enter")
        await until(pilot, lambda: app.workbench.queues()["steering"], "the steering")
        await pilot.press("alt+up")
        assert app.editor.text == "now this", "the steering message was queued last"
        assert app.workbench.queues() == {"steering": [], "follow_up": ["later please"]}
        await pilot.press("alt+up")
        assert app.editor.text == "later please\nnow this"
        (project / "go").touch()
        await idle(pilot)
