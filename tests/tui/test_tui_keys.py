"""The editor's keys against a real session and a scripted model: send, steer, follow up,
new lines, take back, stop, clear and quit, and slash-command completion."""

from __future__ import annotations

import asyncio

from support.app_pilot import (
    SIZE,
    ask,
    busy,
    chat_text,
    idle,
    opened,
    plain,
    screen_shown,
    terminal_keys,
    tools,
    type_text,
    until,
    user_texts,
)
from textual import events

from workbench.runtime import Workbench, WorkbenchOptions
from workbench.tui.app import WorkbenchApp
from workbench.tui.components.completion_list import SHOWN, CompletionList
from workbench.tui.components.queue_list import QueueList
from workbench.tui.components.report_view import ReportView


def bash(command: str) -> dict:
    return {"name": "bash", "arguments": {"command": command}}


async def test_enter_sends_and_the_reply_streams_in(make_app, script) -> None:
    app = make_app(script({"text": "Hello **there**, how can I help?"}))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await type_text(pilot, "hi")
        await pilot.press("enter")
        await idle(pilot)
        assert app.editor.text == ""
        assert user_texts(app) == ["hi"]
        assert "Hello **there**, how can I help?" in chat_text(app)


async def test_enter_while_a_tool_chain_runs_steers_and_skips_the_rest(
    make_app, script, project
) -> None:
    wait = "until [ -f go ]; do sleep 0.02; done"  # runs until the test lets it finish
    model = script(
        {
            "text": "Running the checks.",
            "tool_calls": [bash(wait), bash("echo two"), bash("echo three")],
        },
        {"text": "Understood: pytest -x it is."},
    )
    app = make_app(model)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        app.editor.insert("run the checks")
        await pilot.press("enter")
        await until(
            pilot, lambda: tools(app) and tools(app)[0].status == "running", "the first tool"
        )
        app.editor.insert("use pytest -x")
        await pilot.press("enter")
        queue = app.query_one(QueueList)
        await until(pilot, lambda: queue.steering == ["use pytest -x"], "the steering queue")
        assert "Steering: use pytest -x" in str(queue.render())
        (project / "go").touch()
        await idle(pilot)
        assert [t.status for t in tools(app)] == ["ok", "skipped", "skipped"]
        assert "skipped: due to queued user message." in tools(app)[1].header().plain
        assert user_texts(app) == ["run the checks", "use pytest -x"]
        assert "Understood: pytest -x it is." in chat_text(app)
        assert queue.steering == [] and not queue.has_class("-shown")


async def test_ctrl_j_and_alt_enter_queue_follow_ups_delivered_when_the_agent_stops(
    make_app, script, project
) -> None:
    wait = "until [ -f go ]; do sleep 0.02; done"  # runs until the test lets it finish
    model = script(
        {"text": "Working.", "tool_calls": [bash(wait)]},
        {"text": "Done with the first part."},
        {"text": "README updated."},
        {"text": "Tests added."},
    )
    app = make_app(model)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        app.editor.insert("do the first part")
        await pilot.press("enter")
        await until(pilot, lambda: busy(app), "the run to start")
        app.editor.insert("then update the README")
        await pilot.press("ctrl+j")
        app.editor.insert("then add tests")
        await pilot.press("alt+enter")
        queue = app.query_one(QueueList)
        await until(pilot, lambda: len(queue.follow_up) == 2, "two follow-ups")
        assert "Follow-up: then update the README" in str(queue.render())
        (project / "go").touch()
        await idle(pilot)
        assert user_texts(app) == ["do the first part", "then update the README", "then add tests"]
        text = chat_text(app)
        assert text.index("Done with the first part.") < text.index("README updated.")
        assert text.index("README updated.") < text.index("Tests added.")


async def test_alt_up_takes_the_last_queued_message_back(make_app, script) -> None:
    app = make_app(script({"text": "Working.", "tool_calls": [bash("sleep 2")]}, {"text": "ok"}))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        app.editor.insert("start")
        await pilot.press("enter")
        await until(pilot, lambda: busy(app), "the run to start")
        app.editor.insert("first")
        await pilot.press("ctrl+j")
        await until(pilot, lambda: app.workbench.queues()["follow_up"], "the first follow-up")
        app.editor.insert("second, changed my mind")
        await pilot.press("ctrl+j")
        await until(pilot, lambda: len(app.workbench.queues()["follow_up"]) == 2, "two follow-ups")
        await pilot.press("alt+up")
        assert app.editor.text == "second, changed my mind"
        assert app.workbench.queues()["follow_up"] == ["first"]
        await idle(pilot)


async def test_esc_stops_the_run_and_returns_queued_messages_to_the_editor(
    make_app, script
) -> None:
    app = make_app(script({"text": "This takes a while.", "tool_calls": [bash("sleep 20")]}))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        app.editor.insert("long job")
        await pilot.press("enter")
        await until(pilot, lambda: tools(app) and tools(app)[0].status == "running", "the tool")
        app.editor.insert("steer this")
        await pilot.press("enter")
        app.editor.insert("and follow up")
        await pilot.press("ctrl+j")
        await until(pilot, lambda: sum(map(len, app.workbench.queues().values())) == 2, "queues")
        await pilot.press("escape")
        await idle(pilot)
        assert app.editor.text == "steer this\n\nand follow up"
        assert app.workbench.queues() == {"steering": [], "follow_up": []}
        assert tools(app)[0].status == "error"
        assert "Stopped." in chat_text(app)
        assert "2 queued messages went back to the editor." in chat_text(app)


async def test_new_lines_shift_enter_and_backslash_enter(make_app) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await type_text(pilot, "one")
        await pilot.press("shift+enter")
        await type_text(pilot, "two\\")
        await pilot.press("enter")
        await type_text(pilot, "three")
        assert app.editor.text == "one\ntwo\nthree"
        assert user_texts(app) == []


async def test_ctrl_c_clears_the_editor_first_and_quits_only_twice_on_empty(make_app) -> None:
    """Ctrl+C on text clears it (Ctrl+Z brings it back) and never counts towards quitting:
    `oops wrong`, Ctrl+C, `nope`, Ctrl+C leaves the app open. On an empty editor the first
    Ctrl+C says the second quits, and the second does."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await terminal_keys(pilot, "oops wrong\x03")
        assert app.editor.text == ""
        assert "Ctrl+Z brings it back" in str(app.status_bar.render())
        await terminal_keys(pilot, "\x1a")  # Ctrl+Z
        assert app.editor.text == "oops wrong"
        await terminal_keys(pilot, "\x03nope\x03", burst=True)
        await pilot.pause(0.3)
        assert app.is_running, "two clears are not a quit"
        assert app.editor.text == ""
        await terminal_keys(pilot, "\x03")
        assert app.is_running
        assert "Ctrl+C again quits" in str(app.status_bar.render())
        await terminal_keys(pilot, "\x03")
        await until(pilot, lambda: not app.is_running, "the app to quit")
    assert app.return_value == 0


async def test_ctrl_c_stops_a_run_like_esc_and_does_not_quit(make_app, script) -> None:
    app = make_app(script({"text": "This takes a while.", "tool_calls": [bash("sleep 20")]}))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        app.editor.insert("long job")
        await pilot.press("enter")
        await until(pilot, lambda: tools(app) and tools(app)[0].status == "running", "the tool")
        app.editor.insert("and follow up")
        await pilot.press("ctrl+j")
        await until(pilot, lambda: app.workbench.queues()["follow_up"], "the follow-up queued")
        await terminal_keys(pilot, "\x03")
        await idle(pilot)
        assert "Stopped." in chat_text(app)
        assert app.editor.text == "and follow up", "the queued message came back"
        await terminal_keys(pilot, "\x03")  # the text back in the editor: cleared, not quit
        await pilot.pause(0.3)
        assert app.is_running and app.editor.text == ""


async def test_slash_commands_complete_with_tab_and_up_down(make_app) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await type_text(pilot, "/s")
        texts = [c.text for c in app.editor.completions]
        assert texts[:3] == ["/status ", "/skills", "/skill-graph-status"]
        assert "/skill:atom-edit-code " in texts[3:], "then each skill, as /skill:NAME"
        skill = app.editor.completions[texts.index("/skill:atom-edit-code ")]
        assert skill.help.startswith("Make"), "its own description, not 'activate a skill'"
        app.editor.replace_text("")
        await type_text(pilot, "/activate atom-e")
        [argument] = app.editor.completions
        assert argument.text == "/activate atom-edit-code"
        assert argument.help == skill.help, "the skill's words, not the command's"
        app.editor.replace_text("")
        await type_text(pilot, "/activate atom-")
        await pilot.pause()
        shown = len(app.editor.completions)
        listed = app.query_one(CompletionList)
        lines = min(shown, SHOWN) + 1
        assert shown > 2 and listed.size.height == lines, "a line each, and the key hint"
        app.editor.replace_text("")
        await type_text(pilot, "/s")
        assert app.editor.suggestion == "tatus "
        await pilot.press("down")
        assert app.editor.suggestion == "kills"
        await pilot.press("tab")
        assert app.editor.text == "/skills"
        app.editor.replace_text("")
        await type_text(pilot, "/he")
        await pilot.press("enter")
        await screen_shown(pilot, ReportView, "the help view")
        assert "Ctrl+J or Alt+Enter" in plain(app.screen.body)


async def test_an_unknown_command_is_an_error_and_the_text_stays(make_app) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        app.editor.insert("/nosuch thing")
        await pilot.press("enter")
        await until(pilot, lambda: "unknown command /nosuch" in chat_text(app), "the error")
        assert app.editor.text == "/nosuch thing"


async def test_a_message_sent_before_the_session_opens_waits_for_it(project, script) -> None:
    gate = asyncio.Event()
    model = script({"text": "hello once open"})

    async def open_later(confirm) -> Workbench:
        await gate.wait()
        return await Workbench.open(WorkbenchOptions(cwd=project, model=model, confirm=confirm))

    app = WorkbenchApp(open_later, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "early")
        await pilot.press("enter")
        queue = app.query_one(QueueList)
        assert "Waiting for the session: early" in plain(queue.render())
        gate.set()
        await until(pilot, lambda: "hello once open" in chat_text(app), "the reply")
        assert user_texts(app) == ["early"] and queue.waiting is None


async def test_a_prompt_given_on_the_command_line_is_sent_once_open(project, script) -> None:
    model = script({"text": "on it"})

    async def open_workbench(confirm) -> Workbench:
        return await Workbench.open(WorkbenchOptions(cwd=project, model=model, confirm=confirm))

    app = WorkbenchApp(open_workbench, prompt="fix the failing test", cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: "on it" in chat_text(app), "the reply")
        assert user_texts(app) == ["fix the failing test"]


async def test_esc_with_nothing_queued_says_only_that_it_stopped(make_app, script) -> None:
    app = make_app(script({"text": "This takes a while.", "tool_calls": [bash("sleep 20")]}))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        app.editor.insert("long job")
        await pilot.press("enter")
        await until(pilot, lambda: tools(app) and tools(app)[0].status == "running", "the tool")
        await pilot.press("escape")
        await idle(pilot)
        assert "Stopped." in chat_text(app) and "went back to the editor" not in chat_text(app)


async def test_after_quitting_the_terminal_is_told_how_to_resume(make_app) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("ctrl+c", "ctrl+c")
        await until(pilot, lambda: not app.is_running, "the app to quit")
    assert app.resume_hint == "", "an empty session is not saved: nothing to resume"

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        session_id = app.workbench.current.store.session_id
        await ask(pilot, app, "hello")
        await pilot.press("ctrl+c", "ctrl+c")
        await until(pilot, lambda: not app.is_running, "the app to quit")
    assert app.resume_hint == (
        f"Session {session_id} is saved: workbench -c continues it "
        f"(or workbench --session {session_id})."
    )


def burst(app: WorkbenchApp, *parts: str) -> None:
    """Text and Enters as a terminal delivers a burst (tmux send-keys, a paste without
    bracketed paste): all queued at once, none waiting for the one before to be handled."""
    for part in parts:
        if part == "enter":
            app.post_message(events.Key("enter", "\r"))
            continue
        for character in part:
            app.post_message(events.Key("space" if character == " " else character, character))


async def test_a_burst_is_handled_in_order_and_a_pasted_line_break_is_a_newline(
    make_app,
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        burst(app, "hello there", "enter")
        await until(pilot, lambda: user_texts(app) == ["hello there"], "the text before Enter")
        await idle(pilot)
        burst(app, "line one", "enter", "line two")
        await pilot.pause(0.2)
        assert app.editor.text == "line one\nline two"
        assert user_texts(app) == ["hello there"], "nothing more was sent"


async def test_a_burst_with_ctrl_j_is_new_lines_nothing_lost_or_doubled(make_app) -> None:
    """`alpha one`, Ctrl+J, `beta two`, Ctrl+J, `gamma three` in one burst, through the
    terminal's parser (a paste that arrives as keys, `tmux send-keys`): a Ctrl+J followed at
    once by more text is a line break, as an Enter is; nothing is sent, nothing doubled."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await terminal_keys(pilot, "alpha one\nbeta two\ngamma three", burst=True)
        await pilot.pause(0.2)
        assert app.editor.text == "alpha one\nbeta two\ngamma three"
        assert user_texts(app) == []
        await terminal_keys(pilot, "\n")  # Ctrl+J alone: the three lines, once, queued
        await until(pilot, lambda: user_texts(app) != [], "the message in the chat")
        await idle(pilot)
        assert user_texts(app) == ["alpha one\nbeta two\ngamma three"]
        assert app.editor.text == ""


async def test_keys_right_after_a_send_stay_in_the_editor_once(make_app, script) -> None:
    """Alt+Enter (as the kitty keyboard protocol sends it) sends at once, and the keys behind it
    in the same burst land in the emptied editor: each message sent once, the rest kept."""
    app = make_app(script({"text": "one"}, {"text": "two"}))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        alt_enter = "\x1b[13;3u"
        await terminal_keys(
            pilot, f"alpha one{alt_enter}beta two{alt_enter}gamma three", burst=True
        )
        await until(pilot, lambda: len(user_texts(app)) == 2, "both messages in the chat")
        await idle(pilot)
        assert user_texts(app) == ["alpha one", "beta two"]
        assert app.editor.text == "gamma three"


async def test_alt_enter_sent_as_esc_enter_queues_a_follow_up(make_app, script) -> None:
    """xterm, GNOME Terminal and tmux send Alt+Enter as Esc then Enter: while the agent works
    it queues a follow-up, it does not steer."""
    app = make_app(script({"text": "This takes a while.", "tool_calls": [bash("sleep 20")]}))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        app.editor.insert("long job")
        await pilot.press("enter")
        await until(pilot, lambda: tools(app) and tools(app)[0].status == "running", "the tool")
        await terminal_keys(pilot, "later please\x1b\r", burst=True)
        await until(pilot, lambda: any(app.workbench.queues().values()), "a queued message")
        assert app.workbench.queues() == {"steering": [], "follow_up": ["later please"]}
        await pilot.press("escape")
        await idle(pilot)
