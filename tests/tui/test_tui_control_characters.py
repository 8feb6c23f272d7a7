"""The app shows the control characters of what a model, a tool or a session wrote and never
sends them to the terminal: neither Rich nor Textual neutralise them (`ESC ]52` in a reply would
write the user's clipboard), so every drawn line goes through `workbench.visible`."""

from __future__ import annotations

from support.app_pilot import SIZE, ask, opened

CLIPBOARD = "\x1b]52;c;cHduZWQ=\x07"
TITLE = "\x1b]0;owned\x07"
CLEAR = "\x1b[2J\x9b2J"


async def test_a_reply_and_a_tool_output_show_their_escapes_and_never_send_them(
    make_app, script
) -> None:
    bash = {"name": "bash", "arguments": {"command": r"printf 'out \033]0;owned\007'"}}
    reply = {"text": f"done {CLIPBOARD}{TITLE}{CLEAR}"}
    app = make_app(script({"tool_calls": [bash]}, reply))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await ask(pilot, app, f"go {TITLE}")

        drawn = app.screen._compositor.render_update(full=True).render_segments(app.console)

    assert "\x1b]" not in drawn and "\x9b" not in drawn and "\x1b[2J" not in drawn
    assert "done ␛]52;c;cHduZWQ=␛]0;owned␛[2J␛[2J" in drawn, "BEL is dropped by Rich"
    assert "go ␛]0;owned" in drawn
