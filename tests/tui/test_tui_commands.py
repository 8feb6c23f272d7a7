"""Every slash command (and the command palette, F-keys) against a real session."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.app_pilot import (
    SIZE,
    ask,
    chat_text,
    git,
    idle,
    items,
    opened,
    plain,
    screen_shown,
    tree_lines,
    type_text,
    until,
    user_texts,
)
from support.workbench_process import write_user_settings
from textual.command import CommandPalette
from textual.widgets import OptionList, TextArea

from workbench.errors import WorkbenchError
from workbench.sessions.session import Session
from workbench.tui.components.commit_draft import CommitDraft
from workbench.tui.components.confirm import ConfirmDialog
from workbench.tui.components.report_view import ReportView
from workbench.tui.components.session_picker import SessionPicker
from workbench.tui.components.skill_panel import SkillPanel
from workbench.tui.components.status_view import StatusView
from workbench.tui.components.text_prompt import TextPrompt
from workbench.tui.components.tree_panel import TreePanel
from workbench.tui.items import NoteItem
from workbench.tui.model_picker import ModelPicker


async def command(pilot, app, text: str) -> None:
    app.editor.focus()
    app.editor.insert(text)
    await pilot.press("enter")
    await until(pilot, lambda: not app.editor.text, "the command sent")  # Enter ends a burst
    await app.workers.wait_for_complete()
    await pilot.pause()


def notes(app) -> list[str]:
    return [i.text for i in items(app) if isinstance(i, NoteItem)]


async def close_view(pilot, app) -> str:
    """The text of the view on top, which is then closed with Esc."""
    await screen_shown(pilot, ReportView, "a view")
    text = plain(app.screen.body)
    await pilot.press("escape")
    return text


async def test_help_by_f1_by_command_and_by_the_palette(make_app) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("f1")
        assert "Alt+Up" in await close_view(pilot, app)
        await command(pilot, app, "/help")
        assert "/merge <branch>" in await close_view(pilot, app)
        await pilot.press("ctrl+p")
        await screen_shown(pilot, CommandPalette, "the palette")
        await type_text(pilot, "skill-graph")
        await pilot.pause(0.3)
        await pilot.press("enter")
        assert "Skill graph status (enforcer mode: warn)" in await close_view(pilot, app)


async def test_the_palette_asks_for_a_command_argument(make_app) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("ctrl+p")
        await screen_shown(pilot, CommandPalette, "the palette")
        await type_text(pilot, "/label")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await screen_shown(pilot, TextPrompt, "the argument prompt")
        await pilot.press("escape")
        assert not isinstance(app.screen, TextPrompt)


async def test_f_keys_and_commands_move_between_panes(make_app) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("f2")
        assert app.query_one(SkillPanel).has_focus
        await pilot.press("f3")
        assert app.query_one(TreePanel).has_focus
        await pilot.press("f4")
        assert app.transcript.has_focus
        await pilot.press("escape")
        assert app.editor.has_focus
        await command(pilot, app, "/skills")
        assert app.query_one(SkillPanel).has_focus
        await pilot.press("escape")
        await command(pilot, app, "/tree")
        assert app.query_one(TreePanel).has_focus


async def test_model_switches_and_the_footer_follows(make_app, script) -> None:
    first = script({"text": "from the first"})
    script({"text": "from the second"}, name="second.json")
    app = make_app(first)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await ask(pilot, app, "who answers first?")
        await command(pilot, app, "/model scripted:second.json")
        assert "scripted:second.json" in plain(app.status_bar.render())
        await ask(pilot, app, "who answers?")
        assert "from the second" in chat_text(app)
        app.editor.insert("/model")
        await pilot.press("enter")
        await screen_shown(pilot, ModelPicker, "the model picker")
        picker = app.screen
        assert picker.shown[:3] == ["scripted:second.json", first, "demo"], "recent ones first"
        await pilot.press(*"dem")
        await until(pilot, lambda: picker.shown == ["demo"], "the list filtered by typing")
        await pilot.press("enter")
        await until(pilot, lambda: "demo" in plain(app.status_bar.render()), "the demo model")


async def test_compact_summarises_older_history(make_app, project: Path, script) -> None:
    write_user_settings({"compaction": {"keep_recent_tokens": 5}})
    turns = [{"text": f"answer {n} " + "words " * 50} for n in range(3)]
    app = make_app(script(*turns, summaries=["## Goal\nanswer three questions"]))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        for n in range(3):
            await ask(pilot, app, f"question {n}")
        await command(pilot, app, "/compact keep the answers")
        await until(
            pilot, lambda: any(n.startswith("Compacted:") for n in notes(app)), "compaction"
        )


async def test_skill_graph_status_activate_and_deactivate(make_app) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        panel = app.query_one(SkillPanel)
        await command(pilot, app, "/activate compound-ship-change")
        await until(pilot, lambda: "compound-ship-change" in panel.loaded, "the activation")
        assert panel.active == "compound-ship-change"
        await command(pilot, app, "/skill-graph-status")
        assert "Active compound: compound-ship-change" in await close_view(pilot, app)
        await command(pilot, app, "/deactivate compound-ship-change")
        await until(pilot, lambda: "compound-ship-change" not in panel.loaded, "the deactivation")
        await command(pilot, app, "/activate")
        assert "/activate needs a skill name" in chat_text(app)


async def test_quit(make_app) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        app.editor.insert("/quit")
        await pilot.press("enter")
        await until(pilot, lambda: not app.is_running, "the app to quit")
    assert app.return_value == 0


async def test_fork_label_status_commit_and_merge(make_app, project: Path, script) -> None:
    write = {"name": "write", "arguments": {"path": "NOTES.md", "content": "notes\n"}}
    app = make_app(
        script(
            {"text": "first answer"}, {"text": "Writing.", "tool_calls": [write]}, {"text": "Done."}
        )
    )
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        tree = app.query_one(TreePanel)
        await ask(pilot, app, "start here")
        await command(pilot, app, "/label before-notes")
        await until(
            pilot, lambda: any("[before-notes]" in line for line in tree_lines(tree)), "the label"
        )
        await command(pilot, app, "/fork notes")
        await until(pilot, lambda: "⎇ notes" in plain(app.status_bar.render()), "the fork")
        await ask(pilot, app, "write the notes")
        await command(pilot, app, "/status")
        await screen_shown(pilot, StatusView, "the status view")
        assert [plain(row).split() for _, row in app.screen.files] == [
            ["added", "NOTES.md", "uncommitted"]
        ]
        assert "1 file changed" in await close_view(pilot, app)
        await command(pilot, app, "/commit Add the notes")
        await until(pilot, lambda: "Add the notes" in chat_text(app), "the commit notice")
        assert "on branch notes: Add the notes" in chat_text(app)
        app.editor.insert("/merge notes")
        await pilot.press("enter")
        await until(
            pilot,
            lambda: "Remove the worktree of notes?" in str(getattr(app.screen, "title_text", "")),
            "the worktree question",
        )
        await pilot.press("n")
        merged = "Branch notes was merged into main."  # the merge entry
        await until(pilot, lambda: merged in chat_text(app), "the merge in the chat")
        await idle(pilot)
        assert "Merged notes into main: commit" in chat_text(app), "the result, after the reload"
        assert "Files changed:\n  NOTES.md" in chat_text(app), "the files, not the model's tags"
        assert "<modified-files>" not in chat_text(app)
        assert (project / "NOTES.md").read_text() == "notes\n"
        await pilot.press("f3")  # the result took no key: F3 goes to the tree
        await until(pilot, lambda: tree.has_focus, "the tree focused")


async def test_new_and_resume_sessions(make_app, script) -> None:
    app = make_app(script({"text": "one"}, {"text": "two"}))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await ask(pilot, app, "in the first session")
        first = app.workbench.state().session_id
        await command(pilot, app, "/new")
        await until(pilot, lambda: user_texts(app) == [], "an empty chat")
        assert app.workbench.state().session_id != first
        await ask(pilot, app, "in the second session")
        await pilot.press("ctrl+p")
        await screen_shown(pilot, CommandPalette, "the palette")
        await type_text(pilot, "/resume")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await screen_shown(pilot, SessionPicker, "the picker, at once")
        shown = plain(app.screen.query_one(OptionList).get_option_at_index(1).prompt)
        assert "in the first session" in shown and "just now · 2 entries · 1 branch" in shown
        position = [info.id for info in app.screen.sessions].index(first)
        await pilot.press("home", *["down"] * position, "enter")
        await until(pilot, lambda: user_texts(app) == ["in the first session"], "the first session")


async def test_a_merge_conflict_is_an_error_naming_the_files(
    make_app, project: Path, script
) -> None:
    write = {"name": "write", "arguments": {"path": "NOTES.md", "content": "from the branch\n"}}
    app = make_app(script({"text": "Writing.", "tool_calls": [write]}, {"text": "Done."}))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await command(pilot, app, "/fork b")
        await ask(pilot, app, "write the notes")
        await command(pilot, app, "/commit Notes from the branch")
        await until(pilot, lambda: "Notes from the branch" in chat_text(app), "the commit")
        (project / "NOTES.md").write_text("from main\n")
        git(project, "add", "NOTES.md")
        git(project, "commit", "--quiet", "-m", "notes on main")
        app.editor.focus()
        app.editor.insert("/merge b")
        await pilot.press("enter")
        await screen_shown(pilot, ConfirmDialog, "the worktree question")
        await pilot.press("n")
        await until(pilot, lambda: "conflict  NOTES.md" in chat_text(app), "the error")
        assert "would conflict" in chat_text(app)
        assert app.screen is app.screen_stack[0], "no view waits for a key"
        assert (project / "NOTES.md").read_text() == "from main\n"


async def test_ctrl_q_quits_and_releases_the_session(make_app, project: Path) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await ask(pilot, app, "ship a change")
        session_id = app.workbench.state().session_id
        with pytest.raises(WorkbenchError, match="open in another process"):
            Session.open(project, session_id)
        await pilot.press("ctrl+q")
        await until(pilot, lambda: not app.is_running, "the app to quit")
    reopened = Session.open(project, session_id)  # the lock was released
    reopened.close()


async def test_nothing_to_compact_is_information_not_an_error(make_app, script) -> None:
    app = make_app(script({"text": "short answer"}))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await ask(pilot, app, "hi")
        app.editor.insert("/compact")
        await pilot.press("enter")
        await until(pilot, lambda: "Nothing to compact" in chat_text(app), "the answer")
        notes = [i for i in items(app) if isinstance(i, NoteItem)]
        assert not [n for n in notes if n.kind == "error"], [n.text for n in notes]


async def test_new_starts_with_nothing_of_the_session_before(make_app) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await app.controller.run("activate", "atom-edit-code")
        await until(pilot, lambda: "atom-edit-code" in app.workbench.loading_state().loaded, "it")
        first = app.workbench.current.store.session_id
        await app.controller.run("new")
        await until(
            pilot, lambda: app.workbench.current.store.session_id != first, "the new session"
        )
        state = app.workbench.loading_state()
        assert (state.loaded, state.activated, state.history) == ({}, set(), [])
        assert app.workbench.current.next_turn == [], "A's held notices are not B's entries"
        await until(pilot, lambda: "nothing of the one before" in chat_text(app), "the note")
        assert "atom-edit-code" not in app.query_one(SkillPanel).loaded


async def test_commit_shows_the_drafted_message_to_edit_before_committing(
    make_app, project: Path, script
) -> None:
    draft = "Add the notes\n\nThey say what the session found."
    app = make_app(script({"text": "ok"}, summaries=[draft, draft]))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        (project / "NOTES.md").write_text("notes\n")
        await type_text(pilot, "/commit")  # the command waits for the dialog: no `command`
        await pilot.press("enter")
        await screen_shown(pilot, CommitDraft, "the draft")
        area = app.screen.query_one(TextArea)
        assert area.text.strip() == draft and app.focused is area
        await pilot.press("escape")
        await until(pilot, lambda: "the draft was dropped" in chat_text(app), "the note")
        assert "notes" not in git(project, "log", "--format=%s"), "nothing was committed"

        await type_text(pilot, "/commit")
        await pilot.press("enter")
        await screen_shown(pilot, CommitDraft, "the draft again")
        area = app.screen.query_one(TextArea)
        area.move_cursor((0, len("Add the notes")))
        await pilot.press(*" on main", "ctrl+s")
        await until(pilot, lambda: "Committed " in chat_text(app), "the commit notice")
        assert git(project, "log", "-1", "--format=%s").strip() == "Add the notes on main"
        await pilot.press("f3")  # the result is a notice: the next key does what it says
        await until(pilot, lambda: app.query_one(TreePanel).has_focus, "the tree focused")
        assert "They say what the session found." in git(project, "log", "-1", "--format=%b")


async def test_a_new_session_opens_with_a_welcome_and_the_way_back_to_the_last(
    make_app, script
) -> None:
    app = make_app(script({"text": "one"}))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await until(pilot, lambda: "Welcome to workbench" in chat_text(app), "the welcome")
        assert "/resume" not in chat_text(app), "no earlier session to offer"
        await ask(pilot, app, "fix the parser")
        first = app.workbench.state().session_id
    again = make_app(script({"text": "two"}))
    async with again.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await until(pilot, lambda: "Welcome to workbench" in chat_text(again), "the welcome")
        assert f"the last one ('fix the parser') is {first}" in chat_text(again)


async def test_push_and_export_from_the_app(
    make_app, project: Path, script, tmp_path: Path
) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "--quiet", "--bare", str(remote))
    git(project, "remote", "add", "origin", str(remote))
    app = make_app(script({"text": "noted"}, {"text": "noted too"}))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await ask(pilot, app, "the key is sk-ant-api03-Zx8Qp2Lm9Vr4Tk7Wn3Yb6Hc1Jd5Ge0Fa")
        await command(pilot, app, "/push")
        # in the question and in the session's name, which is its first line
        await until(pilot, lambda: "not pushed: 2 credentials found" in chat_text(app), "the no")
        assert "push with --redact" in chat_text(app)
        assert git(remote, "for-each-ref").strip() == "", "nothing was sent"

        await command(pilot, app, "/push --redact")
        await until(pilot, lambda: "redacted" in chat_text(app).split("/push --redact")[-1], "it")
        report = chat_text(app).split("/push --redact")[-1]
        assert "main" in report, report
        sid = app.workbench.state().session_id
        assert f"refs/workbench/{sid}/branches/main" in git(remote, "for-each-ref")

        await command(pilot, app, "/export md")
        await until(pilot, lambda: "not exported: 2 credentials" in chat_text(app), "the no")
        await command(pilot, app, "/export md --redact")
        await until(pilot, lambda: "Exported main" in chat_text(app), "the export note")
        written = (project / f"workbench-{sid}-main.md").read_text()
        assert "the key is [REDACTED Anthropic key]" in written and "Zx8Qp2" not in written


async def test_the_tree_shows_what_each_branch_cost_and_the_commit_draft_carries_it(
    make_app, project: Path, script
) -> None:
    usage = {"input_tokens": 100, "output_tokens": 10, "cache_read_tokens": 900}
    model = script({"text": "ok", "usage": usage}, summaries=["Add the notes"])
    write_user_settings({"models": {model: {"cost": {"input": 1, "output": 2, "cache_read": 0.1}}}})
    app = make_app(model)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await ask(pilot, app, "write notes")  # 100 x $1 + 10 x $2 + 900 x $0.10 per million
        tree = app.query_one(TreePanel)
        await until(pilot, lambda: any("$0.0002" in x for x in tree_lines(tree)), "the cost")
        assert any(x.startswith("⎇ main") and "$0.0002" in x for x in tree_lines(tree))
        (project / "NOTES.md").write_text("notes\n")
        await type_text(pilot, "/commit")
        await pilot.press("enter")
        await screen_shown(pilot, CommitDraft, "the draft")
        shown = app.screen.query_one(TextArea).text
        assert "Workbench-Cost: $0.0002" in shown and "Workbench-Tokens:" in shown, shown
        await pilot.press("ctrl+s")
        await until(pilot, lambda: "Committed " in chat_text(app), "the commit notice")
        body = git(project, "log", "-1", "--format=%B")
        assert body.count("Workbench-Cost:") == 1, body


async def test_the_palette_shows_a_commands_usage_as_written(make_app) -> None:
    from textual.command import CommandList

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("ctrl+p")
        await screen_shown(pilot, CommandPalette, "the palette")
        await type_text(pilot, "/push")
        options = app.screen.query_one(CommandList)
        await until(pilot, lambda: options.option_count > 0, "the matches")
        shown = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert any("/push [remote] [--redact]" in line for line in shown), shown
        await pilot.press("escape")
