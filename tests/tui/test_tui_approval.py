"""Approving edits in the app: F5 cycles the approval shown in the footer; an edit waits in an
inline prompt with its diff, answered y, n or a through the terminal's keys; typing goes to the
editor meanwhile; going back in the tree offers to restore the files."""

from __future__ import annotations

from pathlib import Path

from support.app_pilot import (
    SIZE,
    chat_text,
    idle,
    opened,
    plain,
    terminal_keys,
    tools,
    until,
    user_texts,
)

from workbench.tui.app import WorkbenchApp
from workbench.tui.components.tree_panel import TreePanel
from workbench.tui.permission_prompt import PermissionPrompt

F5 = "\x1b[15~"


def edit(old: str, new: str) -> dict:
    return {"name": "edit", "arguments": {"path": "README.md", "old_text": old, "new_text": new}}


def prompt_of(app: WorkbenchApp) -> PermissionPrompt:
    return app.query_one(PermissionPrompt)


def asking(app: WorkbenchApp, text: str) -> bool:
    """Whether the prompt asks about a change that shows `text`."""
    request = prompt_of(app).request
    return request is not None and text in request.detail


def results(app: WorkbenchApp) -> list[str]:
    assert app.workbench is not None
    return [m.text for m in app.workbench.messages() if m.role == "tool_result"]


async def test_f5_asks_for_edits_and_y_n_a_answer_them(make_app, script, project: Path) -> None:
    model = script(
        {"tool_calls": [edit("demo project", "refused change")]},
        {"tool_calls": [edit("demo project", "first change")]},
        {"tool_calls": [edit("first change", "second change")]},
        {"tool_calls": [edit("second change", "third change")]},
        {"text": "done"},
    )
    app = make_app(model)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        assert "approve never (F5)" in plain(app.status_bar.render())
        await terminal_keys(pilot, F5)
        await until(pilot, lambda: "approve edits" in plain(app.status_bar.render()), "F5")
        await terminal_keys(pilot, "change it\r")
        prompt = prompt_of(app)
        await until(pilot, lambda: prompt.request is not None, "the edit to wait for approval")
        assert app.screen is app.screen_stack[0], "inline, not a modal screen"
        shown = prompt.shown()
        assert "Edit README.md" in shown and "-demo project" in shown
        assert "+refused change" in shown and "a always allow edits this session" in shown
        footer, row = plain(app.status_bar.render(), 200), tools(app)[-1].header().plain
        assert "● waiting for you" in footer and "working" not in footer, footer
        assert "waiting for your answer" in row and "running" not in row, row
        await terminal_keys(pilot, "n")
        await until(pilot, lambda: asking(app, "first change"), "the second edit")
        assert (project / "README.md").read_text() == "demo project\n", "refused: not applied"
        assert "the user refused this edit" in results(app)[0]
        await terminal_keys(pilot, "y")
        await until(pilot, lambda: asking(app, "second change"), "the third edit")
        assert (project / "README.md").read_text() == "first change\n"
        await terminal_keys(pilot, "a")
        await idle(pilot)
        assert (project / "README.md").read_text() == "third change\n", "always: not asked again"
        assert prompt.request is None and not prompt.has_class("-shown")
        assert "waiting" not in plain(app.status_bar.render(), 200)


async def test_typing_while_asked_is_text_and_sending_it_refuses_the_edit(
    make_app, script, project: Path
) -> None:
    model = script({"tool_calls": [edit("demo project", "unwanted")]}, {"text": "understood"})
    app = make_app(model)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await terminal_keys(pilot, "/approval edits\r")
        await until(pilot, lambda: "approve edits" in plain(app.status_bar.render()), "the mode")
        await terminal_keys(pilot, "edit it\r")
        prompt = prompt_of(app)
        await until(pilot, lambda: prompt.request is not None, "the question")
        await terminal_keys(pilot, "keep it as it is")
        assert app.editor.text == "keep it as it is", "every letter in the editor, none answered"
        assert prompt.request is not None, "the question stays"
        await terminal_keys(pilot, "\r")
        await idle(pilot)
        assert (project / "README.md").read_text() == "demo project\n"
        assert "sent a message instead of approving this edit" in results(app)[0]
        assert "keep it as it is" in user_texts(app)
        assert not prompt.has_class("-shown")


async def test_going_back_in_the_tree_offers_to_restore_the_files(
    make_app, script, project: Path
) -> None:
    write = {"name": "write", "arguments": {"path": "notes.txt", "content": "made by the agent\n"}}
    bash = {"name": "bash", "arguments": {"command": "echo more > more.txt; rm README.md"}}
    model = script({"text": "hello"}, {"tool_calls": [write, bash]}, {"text": "written"})
    app = make_app(model)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await terminal_keys(pilot, "hi\r")
        await idle(pilot)
        await terminal_keys(pilot, "write notes\r")
        await idle(pilot)
        assert (project / "notes.txt").exists() and not (project / "README.md").exists()
        tree = app.query_one(TreePanel)
        await terminal_keys(pilot, "\x1bOR")  # F3
        await until(pilot, lambda: tree.has_focus, "the tree")
        first = next(n for n in tree.root.children[0].children if "hi" in n.label.plain)
        tree.move_cursor(first)
        await pilot.pause()
        await terminal_keys(pilot, "\r")
        prompt = prompt_of(app)
        await until(pilot, lambda: prompt.request is not None, "the restore question")
        detail = prompt.request.detail
        assert "notes.txt" in detail and "more.txt" in detail and "README.md" in detail
        await terminal_keys(pilot, "y")
        await until(pilot, lambda: (project / "README.md").exists(), "the files restored")
        assert not (project / "notes.txt").exists() and not (project / "more.txt").exists()
        assert (project / "README.md").read_text() == "demo project\n"


async def test_edit_and_resend_with_the_files_says_what_it_restored_and_how_to_undo(
    make_app, script, project: Path
) -> None:
    write = {"name": "write", "arguments": {"path": "notes.txt", "content": "made by the agent\n"}}
    model = script({"text": "hello"}, {"tool_calls": [write]}, {"text": "written"})
    app = make_app(model)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await terminal_keys(pilot, "hi\r")
        await idle(pilot)
        await terminal_keys(pilot, "write notes\r")
        await idle(pilot)
        assert (project / "notes.txt").exists()
        tree = app.query_one(TreePanel)
        await terminal_keys(pilot, "\x1bOR")  # F3
        await until(pilot, lambda: tree.has_focus, "the tree")
        asked = next(n for n in tree.root.children[0].children if "write notes" in n.label.plain)
        tree.move_cursor(asked)
        await pilot.pause()
        await terminal_keys(pilot, "\x1be")  # Alt+E
        prompt = prompt_of(app)
        await until(pilot, lambda: prompt.request is not None, "the restore question")
        await terminal_keys(pilot, "y")
        await until(pilot, lambda: app.editor.text == "write notes", "the question to edit")
        assert not (project / "notes.txt").exists()
        said = "Files restored to this point: 1 file (notes.txt)"
        await until(pilot, lambda: said in chat_text(app), "the line saying what was restored")
        assert "--restore-files" in chat_text(app), "and how to undo it"
