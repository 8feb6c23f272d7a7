"""The chat pane against real sessions: expanding entries, the quick pick, retries and errors,
long replies streamed in few writes and without full garbage collections, and the trust
question for project extensions."""

from __future__ import annotations

import gc
import itertools
import time
from pathlib import Path
from typing import Any

from support.app_pilot import (
    SIZE,
    ask,
    chat_text,
    idle,
    items,
    opened,
    plain,
    screen_shown,
    tools,
    type_text,
    until,
    user_texts,
)
from support.workbench_process import write_user_settings
from textual.screen import Screen

from workbench.tui.collector import NEVER
from workbench.tui.components.confirm import ConfirmDialog
from workbench.tui.components.quick_pick import QuickPick
from workbench.tui.components.reply import ReplyView
from workbench.tui.items import NoteItem

OPTIONS = (
    "Which way?\n\nA) Approve the plan\nB) Narrow it (recommended)\nC) Other: type your own answer"
)


async def test_up_down_select_entries_and_enter_expands_a_tool_call(make_app, script) -> None:
    read = {"name": "read", "arguments": {"path": "README.md"}}
    app = make_app(script({"text": "Reading.", "tool_calls": [read]}, {"text": "It says hello."}))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await ask(pilot, app, "what is in the readme")
        await pilot.press("f4")
        transcript = app.transcript
        assert transcript.has_focus
        await pilot.press("end")
        assert transcript.selected == transcript.row_count - 1
        row = next(r for r in transcript.live if r.item is tools(app)[0])
        wanted = len(transcript.history.items) + transcript.live.index(row)
        while transcript.selected != wanted:
            await pilot.press("up")
        assert row.has_class("-selected")
        assert "README.md" in plain(row.render()) and "demo project" not in plain(row.render())
        await pilot.press("enter")
        assert row.expanded and "demo project" in plain(row.render())


async def test_a_question_with_options_becomes_a_quick_pick(make_app, script) -> None:
    app = make_app(script({"text": OPTIONS}, {"text": "Narrowing it."}, {"text": OPTIONS}))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await ask(pilot, app, "plan it")
        pick = app.query_one(QuickPick)
        await until(pilot, lambda: pick.has_focus, "the quick pick")
        assert pick.highlighted == 1  # the recommended one
        await pilot.press("enter")
        await until(pilot, lambda: "B) Narrow it" in user_texts(app), "the picked answer sent")
        await idle(pilot)
        assert "Narrowing it." in chat_text(app) and not pick.has_class("-shown")
        await ask(pilot, app, "and now?")
        await until(pilot, lambda: pick.has_focus, "the quick pick again")
        await pilot.press("c")  # the free-form option, once the pause shows it is all
        await until(pilot, lambda: app.editor.has_focus, "the editor, for a free answer")
        assert not pick.has_class("-shown")
        assert user_texts(app) == ["plan it", "B) Narrow it", "and now?"]


async def test_typing_over_a_quick_pick_answers_freely(make_app, script) -> None:
    app = make_app(script({"text": OPTIONS}))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await ask(pilot, app, "plan it")
        await until(pilot, lambda: app.query_one(QuickPick).has_focus, "the quick pick")
        await type_text(pilot, "x only")
        assert app.editor.has_focus and app.editor.text == "x only"


async def test_a_letter_is_a_pick_only_when_it_is_the_whole_answer(make_app, script) -> None:
    app = make_app(script({"text": OPTIONS}, {"text": OPTIONS}, {"text": "ok"}))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await ask(pilot, app, "plan it")
        pick = app.query_one(QuickPick)
        await until(pilot, lambda: pick.has_focus, "the quick pick")
        await type_text(pilot, "Actually, neither")  # starts with A: still the user's words
        assert app.editor.text == "Actually, neither" and user_texts(app) == ["plan it"]
        app.editor.replace_text("")
        await ask(pilot, app, "again")
        await until(pilot, lambda: pick.has_focus, "the quick pick again")
        await pilot.press("a")
        await until(pilot, lambda: len(user_texts(app)) == 3, "the pause to take the letter")
        assert user_texts(app)[-1].startswith("A) ")


async def test_esc_puts_a_quick_pick_away(make_app, script) -> None:
    app = make_app(script({"text": OPTIONS}))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await ask(pilot, app, "plan it")
        pick = app.query_one(QuickPick)
        await until(pilot, lambda: pick.has_focus, "the quick pick")
        await pilot.press("down", "escape")
        assert app.editor.has_focus and app.editor.text == ""
        assert not pick.has_class("-shown") and user_texts(app) == ["plan it"]


async def test_retries_and_a_final_error_say_what_happened_and_what_to_do(
    make_app, project, script
) -> None:
    write_user_settings({"retry": {"base_delay_ms": 10}})
    model = script(
        {"error": "rate_limit"},
        {"text": "Got through."},
        {"error": "auth"},
    )
    app = make_app(model)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await ask(pilot, app, "first")
        notes = [i.text for i in items(app) if isinstance(i, NoteItem)]
        assert "Rate-limited, retried, fine (1 retry)." in notes
        assert "Got through." in chat_text(app)
        await ask(pilot, app, "second")
        errors = [i for i in items(app) if isinstance(i, NoteItem) and i.kind == "error"]
        assert errors and "auth" in errors[-1].text


async def streamed_writes(make_app, script, words: int, delay_ms: int) -> list[float]:
    """When a streamed reply of `words` words was written to the screen, up to (not with) the
    finished reply; the reply shown whole is checked too."""
    text = " ".join(f"word{i}" for i in range(words))
    app = make_app(script({"text": text, "delay_ms": delay_ms}))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await ask(pilot, app, "go")
        reply = next(row for row in app.transcript.live if isinstance(row, ReplyView))
        assert reply.source.split() == text.split()
        return reply.writes[:-1]  # the last write comes with the finished reply


async def test_a_long_reply_streams_in_few_markdown_writes(make_app, script) -> None:
    streamed = await streamed_writes(make_app, script, words=400, delay_ms=2)
    gaps = [later - earlier for earlier, later in itertools.pairwise(streamed)]
    assert len(streamed) >= 2, "the reply was shown while it streamed"
    assert min(gaps) > 0.045, "at most 20 writes a second, never one per token"


async def test_a_slow_screen_is_written_to_less_often(make_app, script, monkeypatch) -> None:
    """The gap after a write is a share of the time its drawing took, so keys typed meanwhile
    are not left waiting behind one draw after another. Here every layout of the screen takes
    60 ms: the reply is written at most every 180 ms, not every 50 ms."""
    layout = Screen._refresh_layout

    def slow_layout(screen: Screen, *args: Any, **kwargs: Any) -> None:
        time.sleep(0.06)
        layout(screen, *args, **kwargs)

    monkeypatch.setattr(Screen, "_refresh_layout", slow_layout)
    streamed = await streamed_writes(make_app, script, words=150, delay_ms=4)
    gaps = [later - earlier for earlier, later in itertools.pairwise(streamed)]
    assert len(streamed) >= 2, "the reply was shown while it streamed"
    assert min(gaps) > 0.15, "each write waited for three times its drawing"


async def test_no_full_garbage_collection_starts_while_a_reply_streams(make_app, script) -> None:
    """A full collection holds the interpreter for a few hundred milliseconds: keystrokes typed
    while a reply streams would wait that long. It may run once the turn is over."""
    words = " ".join(f"word{i}" for i in range(100))
    app = make_app(script({"text": words, "delay_ms": 2}))
    thresholds_mid_stream: list[int] = []
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        before = gc.get_threshold()
        app.workbench.subscribe(
            lambda e: (
                thresholds_mid_stream.append(gc.get_threshold()[2])
                if e.type == "message_update"
                else None
            )
        )
        await ask(pilot, app, "go")
        assert thresholds_mid_stream and min(thresholds_mid_stream) >= NEVER
        await until(pilot, lambda: gc.get_threshold() == before, "full collections, after the turn")


async def test_project_extensions_run_only_after_the_user_trusts_the_project(
    make_app, project: Path
) -> None:
    extensions = project / ".pi" / "extensions"
    extensions.mkdir()
    (extensions / "hello.py").write_text(
        "def register(api):\n"
        "    api.register_command('hello', 'say hello', lambda args: 'hello from the project')\n"
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await screen_shown(pilot, ConfirmDialog, "the trust question")
        assert "hello.py" in str(app.screen.message)
        assert "hello" not in app.workbench.commands
        await pilot.press("y")
        await until(pilot, lambda: "hello" in app.workbench.commands, "the extension to load")
        assert "Trusted the project: 1 extension loaded." in chat_text(app)
        await type_text(pilot, "/hel")
        assert [c.text for c in app.editor.completions] == ["/help", "/hello "]


async def test_project_sub_agents_run_only_after_the_user_says_yes_in_the_dialog(
    make_app, project: Path, script
) -> None:
    agents = project / ".pi" / "agents"
    agents.mkdir()
    script({"text": "reviewed: looks fine"}, name="child.json")
    child = f"scripted:{project / 'child.json'}"
    (agents / "reviewer.md").write_text(
        f"---\nname: reviewer\ndescription: reviews\nmodel: {child}\n---\nReview.\n"
    )
    call = {
        "name": "subagent",
        "arguments": {"agent": "reviewer", "task": "review", "scope": "project"},
    }
    app = make_app(
        script(
            {"text": "Asking the reviewer.", "tool_calls": [call]},
            {"text": "The reviewer is happy."},
        )
    )
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        app.editor.insert("get a review")
        await pilot.press("enter")
        await screen_shown(pilot, ConfirmDialog, "the sub-agent question")
        assert app.screen.title_text == "Run project agents?"
        assert "reviewer" in app.screen.message
        await pilot.press("y")
        await idle(pilot)
        assert tools(app)[0].status == "ok"
        assert "reviewed: looks fine" in tools(app)[0].result
        assert "The reviewer is happy." in chat_text(app)


async def test_the_context_meter_follows_each_turn_of_a_model_that_reports_no_usage(
    make_app, script, project: Path
) -> None:
    (project / "big.txt").write_text("many words in a long file\n" * 2000)
    read = {"name": "read", "arguments": {"path": "big.txt"}}
    app = make_app(script({"tool_calls": [read]}, {"text": "read it"}))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        before = app.status_bar.footing.context_tokens
        await ask(pilot, app, "read the big file")
        after = app.status_bar.footing.context_tokens
        assert after - before > 5000, "the file's tokens count in the meter"
        assert "context 0%" not in plain(app.status_bar.render(), 200)


async def test_the_footer_shows_the_sessions_cost_and_cache_hit_rates(project: Path) -> None:
    from support.anthropic_server import AnthropicReply, AnthropicServer
    from support.app_pilot import build_app

    def usage(read: int, write: int) -> dict[str, int]:
        keys = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
        return {**dict(zip(keys, (10, read, write), strict=True)), "output_tokens": 7}

    with AnthropicServer() as server:
        server.add(AnthropicReply("first", usage=usage(read=0, write=990)))
        server.add(AnthropicReply("second", usage=usage(read=990, write=0)))
        options = {"api_base": server.url, "api_key": "test-key"}
        app = build_app(project, model="anthropic/claude-sonnet-4-5", **options)
        async with app.run_test(size=(180, 48)) as pilot:  # wide enough for every part
            await opened(pilot)
            await ask(pilot, app, "one")
            await ask(pilot, app, "two")
            footer = plain(app.status_bar.render(), 180)
            # 990 read of 2,000 prompt tokens in all; the last call read 990 of 1,000
            assert "cache 99% last, 50% all" in footer, footer
            assert "↑2.0k ↓14" in footer, footer
            # (20 x $3 + 990 x $3.75 + 990 x $0.30 + 14 x $15) per million
            assert "$0.0043" in footer, footer


async def test_at_80_columns_a_folded_tool_row_keeps_its_outcome(make_app, script) -> None:
    """A finished turn folds into the history; at 80 columns a call whose command is long shows
    the command cut with "…" and, whole, its outcome (the error's first line)."""
    command = "false && echo " + "a-rather-long-argument " * 6
    call = {"name": "bash", "arguments": {"command": command}}
    app = make_app(script({"text": "Trying.", "tool_calls": [call]}, {"text": "It failed."}))
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        await ask(pilot, app, "run it")
        await ask(pilot, app, "and now?")
        history = app.transcript.history
        index = next(
            i for i, item in enumerate(history.items) if getattr(item, "name", "") == "bash"
        )
        line = history._strips(index, history.size.width)[0].text.rstrip()
        outcome = tools(app)[0].header().plain.split(command.strip())[-1].strip()
        assert "…" in line and line.endswith(outcome), (line, outcome)
