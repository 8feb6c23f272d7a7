"""Diffs in readable views: Enter on a file in the status view, `d` there, `/diff [path]`, the
palette; Esc goes back to where the view was opened."""

from __future__ import annotations

from pathlib import Path

from support.app_pilot import (
    SIZE,
    build_app,
    chat_text,
    idle,
    opened,
    plain,
    screen_shown,
    terminal_keys,
    type_text,
    until,
    user_texts,
)
from textual.command import CommandPalette
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import OptionList

from workbench.tui.components.report_view import ReportView
from workbench.tui.components.status_view import StatusView
from workbench.tui.components.text_prompt import TextPrompt

NOTES = "".join(f"note {n}\n" for n in range(1, 121))  # longer than the view: it scrolls


def two_files(script) -> str:
    """A scripted model that writes NOTES.md (new) and rewrites README.md, then stops."""
    writes = [
        {"name": "write", "arguments": {"path": "NOTES.md", "content": NOTES}},
        {"name": "write", "arguments": {"path": "README.md", "content": "the new readme\n"}},
    ]
    return script({"text": "Writing.", "tool_calls": writes}, {"text": "Done."})


async def send(pilot, app, text: str) -> None:
    app.editor.focus()
    app.editor.insert(text)
    await pilot.press("enter")
    await until(pilot, lambda: not app.editor.text, "the text sent")  # Enter ends a burst


async def work_on_a_fork(pilot, app) -> None:
    await opened(pilot)
    await send(pilot, app, "/fork notes")
    await until(pilot, lambda: app.workbench.state().branch == "notes", "the fork")
    await send(pilot, app, "write the notes")
    await until(pilot, lambda: "write the notes" in user_texts(app), "the prompt")
    await idle(pilot)


def is_diff_view(app) -> bool:
    return type(app.screen) is ReportView and app.screen.title_text.startswith("Diff of")


async def open_diff(pilot, app) -> str:
    await until(pilot, lambda: is_diff_view(app), "the diff view")
    await pilot.pause()
    return plain(app.screen.body)


async def test_enter_on_a_file_in_the_status_view_opens_its_diff_and_esc_goes_back(
    make_app, script
) -> None:
    app = make_app(two_files(script))
    async with app.run_test(size=SIZE) as pilot:
        await work_on_a_fork(pilot, app)
        await send(pilot, app, "/status")
        await screen_shown(pilot, StatusView, "the status view")
        status = app.screen
        files = status.query_one(OptionList)
        assert files.has_focus
        rows = [plain(files.get_option_at_index(i).prompt) for i in range(files.option_count)]
        assert [row.split() for row in rows] == [
            ["added", "NOTES.md", "uncommitted"],
            ["modified", "README.md", "uncommitted"],
        ]

        await pilot.press("down", "enter")
        readme = await open_diff(pilot, app)
        assert app.screen.title_text == "Diff of README.md on notes"
        assert "1 file changed  +1 -1" in readme
        assert "README.md  modified  +1 -1" in readme
        assert "-demo project\n+the new readme" in readme
        assert "NOTES.md" not in readme and "index " not in readme

        await pilot.press("escape")
        await until(pilot, lambda: app.screen is status, "the status view again")
        await pilot.press("up", "enter")
        notes = await open_diff(pilot, app)
        assert "NOTES.md  added  +120 -0" in notes and "@@ -0,0 +1,120 @@" in notes
        scroll = app.screen.query_one(VerticalScroll)
        assert scroll.has_focus and scroll.scroll_y == 0
        await pilot.press("pagedown")
        await until(pilot, lambda: scroll.scroll_y > 0, "the diff to scroll")
        await pilot.press("escape")

        await until(pilot, lambda: app.screen is status, "the status view again")
        await terminal_keys(pilot, "\x1bd")
        whole = await open_diff(pilot, app)
        assert app.screen.title_text == "Diff of notes since the fork"
        assert "2 files changed  +121 -1" in whole
        assert whole.index("NOTES.md  added") < whole.index("README.md  modified")
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is status, "the status view again")
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ModalScreen), "the main screen")


async def test_the_status_of_another_branch_opens_that_branchs_diff(make_app, script) -> None:
    app = make_app(two_files(script))
    async with app.run_test(size=SIZE) as pilot:
        await work_on_a_fork(pilot, app)
        await app.workbench.switch_branch("main")
        await send(pilot, app, "/status notes")
        await screen_shown(pilot, StatusView, "the status view")
        await pilot.press("enter")
        text = await open_diff(pilot, app)
        assert app.screen.title_text == "Diff of NOTES.md on notes"
        assert "+note 1\n+note 2" in text


async def test_the_diff_command_and_the_palette(make_app, script) -> None:
    app = make_app(two_files(script))
    async with app.run_test(size=SIZE) as pilot:
        await work_on_a_fork(pilot, app)
        await send(pilot, app, "/diff README.md")
        readme = await open_diff(pilot, app)
        assert "-demo project\n+the new readme" in readme and "NOTES.md" not in readme
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ModalScreen), "the main screen")

        await send(pilot, app, "/diff")
        assert "2 files changed" in await open_diff(pilot, app)
        await pilot.press("escape")
        await send(pilot, app, "/diff src/nothing.py")
        assert "No changes to src/nothing.py since the fork." in await open_diff(pilot, app)
        await pilot.press("escape")

        await app.workbench.switch_branch("main")  # the project checkout: its last commit
        await send(pilot, app, "/diff")
        assert "No changes to its files since the last commit." in await open_diff(pilot, app)
        assert app.screen.title_text == "Diff of main since the last commit"
        await pilot.press("escape")
        await app.workbench.switch_branch("notes")

        await pilot.press("ctrl+p")
        await screen_shown(pilot, CommandPalette, "the palette")
        await type_text(pilot, "/diff")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await screen_shown(pilot, TextPrompt, "the path prompt")
        await type_text(pilot, "NOTES.md")
        await pilot.press("enter")
        assert "NOTES.md  added  +120 -0" in await open_diff(pilot, app)


async def test_diff_in_a_project_without_git_says_it_needs_git(tmp_path: Path) -> None:
    plain_folder = tmp_path / "plain"
    plain_folder.mkdir()
    app = build_app(plain_folder, model="demo")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await send(pilot, app, "/diff")
        await until(pilot, lambda: "is not a git repository" in chat_text(app), "the error")
        assert not isinstance(app.screen, ModalScreen)
        assert "run git init and make a first commit" in chat_text(app), "no code ticks on screen"
