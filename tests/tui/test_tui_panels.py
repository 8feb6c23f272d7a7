"""The skill graph and conversation tree panels: live updates, their keys, their views."""

from __future__ import annotations

import html
import re

from support.app_pilot import (
    SIZE,
    ask,
    chat_text,
    opened,
    plain,
    screen_shown,
    terminal_keys,
    tree_lines,
    type_text,
    until,
    user_texts,
)
from textual.containers import VerticalScroll

from workbench.skills.projection import project
from workbench.tui.components.confirm import ConfirmDialog
from workbench.tui.components.report_view import ReportView
from workbench.tui.components.skill_detail import SkillDetail
from workbench.tui.components.skill_panel import SkillPanel
from workbench.tui.components.text_prompt import TextPrompt
from workbench.tui.components.tree_panel import TreePanel


def read(path: str) -> dict:
    return {"name": "read", "arguments": {"path": path}}


async def select(pilot, tree, text: str) -> None:
    """Move a tree panel's cursor to the first node whose label contains `text`. From the top
    again while the panel is rebuilt after a move (the rebuild puts the cursor on the current
    entry), as a user would."""
    tree.focus()
    for _ in range(20):
        await pilot.press("home")
        for _ in range(len(tree_lines(tree)) + 1):
            node = tree.cursor_node
            if node is not None and text in node.label.plain:
                return
            await pilot.press("down")
        await pilot.pause(0.05)
    raise AssertionError(f"no node with {text!r} in {tree_lines(tree)}")


async def test_the_skill_panel_marks_a_violation_while_the_agent_runs(make_app, script) -> None:
    model = script(
        {
            "text": "Straight to implementation.",
            "tool_calls": [read("skills/molecule-implement-change/SKILL.md")],
        },
        {"text": "Now the compound.", "tool_calls": [read("skills/compound-ship-change/SKILL.md")]},
        {"text": "Done."},
    )
    app = make_app(model)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        panel = app.query_one(SkillPanel)
        assert panel.border_title == "Skills · 16 · 0 loaded"
        await ask(pilot, app, "implement it")
        assert panel.violations["molecule-implement-change"] == 1
        assert panel.border_title == "Skills · 16 · 2 loaded · ⚠ 1 violation"
        assert panel.has_class("-violations")
        label = panel.label_of("molecule-implement-change").plain
        assert "⚠1" in label and "●" in label
        assert panel.active == "compound-ship-change"
        assert panel.label_of("compound-ship-change").plain.startswith("▶ C")
        assert panel.label_of("atom-run-tests").plain == "A atom-run-tests ◇"


async def test_the_skill_panel_explains_the_standalone_mark(make_app) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        panel = app.query_one(SkillPanel)
        assert panel.label_of("atom-run-tests").plain == "A atom-run-tests ◇"
        assert panel.label_of("atom-merge-branch").plain == "A atom-merge-branch", "not alone"
        assert panel.border_subtitle == "◇ standalone: may be read alone"
        panel.focus()
        await pilot.pause()
        assert panel.border_subtitle == SkillPanel.KEYS_HINT, "focused, the border names its keys"
        app.editor.focus()
        await pilot.pause()
        assert panel.border_subtitle == "◇ standalone: may be read alone"


async def test_opening_a_skill_shows_its_projections_and_findings(make_app) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        panel = app.query_one(SkillPanel)
        await select(pilot, panel, "atom-edit-code")
        await pilot.press("enter")
        await screen_shown(pilot, SkillDetail, "the skill view")
        view = app.screen
        await pilot.pause()
        assert view.level == "core"
        assert "lint: no findings" in plain(view.query_one(".findings").render())
        await pilot.press("3")
        assert view.level == "full"
        source = view.query_one("#projection").source
        # edit-code makes sense only under molecule-implement-change: not standalone
        assert source.startswith("# atom-edit-code (atom)") and "## Steps" in source
        await pilot.press("1")
        assert "atom-edit-code (atom):" in plain(view.query_one("#projected").render())
        await pilot.press("escape")
        assert isinstance(app.screen, type(app.screen_stack[0]))
        await until(pilot, lambda: app.focused is app.editor, "the focus back in the editor")
        await pilot.press("f2")
        await terminal_keys(pilot, "\x1ba")
        await until(pilot, lambda: "atom-edit-code" in panel.loaded, "the activation")
        assert "●" in panel.label_of("atom-edit-code").plain
        await terminal_keys(pilot, "\x1bd")
        await until(pilot, lambda: "atom-edit-code" not in panel.loaded, "the deactivation")


async def test_the_tree_panel_navigates_forks_labels_merges_and_shows_status(
    make_app, script
) -> None:
    app = make_app(script({"text": "one"}, {"text": "two"}, {"text": "three"}))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await ask(pilot, app, "first question")
        await ask(pilot, app, "second question")
        tree = app.query_one(TreePanel)
        await until(
            pilot, lambda: any("second question" in line for line in tree_lines(tree)), "the tree"
        )
        assert any(line.startswith("▶ ") and "second question" in line for line in tree_lines(tree))

        await select(pilot, tree, "first question")
        await pilot.press("alt+l")
        await screen_shown(pilot, TextPrompt, "the label prompt")
        await pilot.press(*"start", "enter")
        await until(pilot, lambda: any("[start]" in line for line in tree_lines(tree)), "the label")

        await select(pilot, tree, "first question")
        await pilot.press("alt+f")
        await screen_shown(pilot, TextPrompt, "the fork prompt")
        await pilot.press(*"alt", "enter")
        await until(
            pilot, lambda: any(line.startswith("⎇ alt") for line in tree_lines(tree)), "the fork"
        )
        await until(
            pilot, lambda: user_texts(app) == ["first question"], "the chat at the fork point"
        )
        await ask(pilot, app, "on the fork")
        assert "three" in chat_text(app) and "two" not in chat_text(app)

        await select(pilot, tree, "second question")
        await pilot.press("enter")
        await until(
            pilot, lambda: user_texts(app) == ["first question", "second question"], "navigation"
        )

        await select(pilot, tree, "⎇ alt")
        await terminal_keys(pilot, "\x1bs")
        await screen_shown(pilot, ReportView, "the status view")
        assert "alt" in plain(app.screen.body)
        await pilot.press("escape")

        await select(pilot, tree, "⎇ alt")
        await terminal_keys(pilot, "\x1bm")
        await screen_shown(pilot, ConfirmDialog, "the merge question")
        await pilot.press("y")
        await until(
            pilot,
            lambda: (
                isinstance(app.screen, (ConfirmDialog, ReportView))
                and not str(app.screen.title_text).startswith("Merge")
            ),
            "the next step",
        )
        if isinstance(app.screen, ConfirmDialog):  # the branch has a worktree: keep it
            await pilot.press("n")
        await until(pilot, lambda: "alt was merged into main" in chat_text(app), "the merge entry")
        assert app.screen is app.screen_stack[0], "the result is in the chat: no view waits"
        await until(
            pilot,
            lambda: any("⇐ alt into main" in line for line in tree_lines(tree)),
            "the merge entry",
        )


async def test_on_a_branch_line_f_forks_at_that_branch_head_and_g_summarises_the_path_left(
    make_app, script
) -> None:
    turns = ({"text": "one"}, {"text": "on alt"}, {"text": "on side"})
    app = make_app(script(*turns, summaries=["## Goal\nexplore the alt idea"]))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await ask(pilot, app, "on main")
        tree = app.query_one(TreePanel)
        await until(pilot, lambda: any("on main" in x for x in tree_lines(tree)), "the tree")
        await app.workbench.fork("alt")
        await ask(pilot, app, "work on alt")

        await select(pilot, tree, "⎇ main")
        await pilot.press("alt+f")
        await screen_shown(pilot, TextPrompt, "the fork prompt")
        await pilot.press(*"side", "enter")
        await until(pilot, lambda: app.workbench.state().branch == "side", "the fork from main")
        assert user_texts(app) == ["on main"]  # main's head, not alt where the session was
        await ask(pilot, app, "try the side idea")

        await select(pilot, tree, "work on alt")
        await pilot.press("alt+g")
        await until(
            pilot, lambda: any("≡" in x for x in tree_lines(tree)), "the branch summary entry"
        )
        assert user_texts(app) == ["on main", "work on alt"]
        assert any("explore the alt idea" in x for x in tree_lines(tree))


async def test_a_partial_read_shows_half_a_dot_until_the_whole_skill_is_read(make_app, script):
    path = "skills/atom-inspect-repo/SKILL.md"  # standalone: read alone, it is no violation
    peek = {"tool_calls": [{"name": "read", "arguments": {"path": path, "limit": 3}}]}
    whole = {"tool_calls": [{"name": "read", "arguments": {"path": path}}]}
    app = make_app(script(peek, {"text": "peeked"}, whole, {"text": "read it"}))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        panel = app.query_one(SkillPanel)
        await ask(pilot, app, "peek at it")
        await until(pilot, lambda: "atom-inspect-repo" in panel.loaded, "the partial load")
        assert panel.label_of("atom-inspect-repo").plain.endswith("atom-inspect-repo ◐ ◇")
        await ask(pilot, app, "now read it all")
        await until(pilot, lambda: "atom-inspect-repo" not in panel.partial, "the whole read")
        assert panel.label_of("atom-inspect-repo").plain.endswith("atom-inspect-repo ● ◇")
        app.session.sync_skills()  # as after resuming: rebuilt from the log
        assert "◐" not in panel.label_of("atom-inspect-repo").plain


async def test_typing_in_a_panel_or_a_view_is_text_for_the_editor(make_app, script) -> None:
    app = make_app(script({"text": "one"}))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await ask(pilot, app, "first question")
        await pilot.press("f3")
        tree = app.query_one(TreePanel)
        await until(pilot, lambda: str(tree.border_title).startswith("▶ "), "the marked title")
        assert app.focused is tree
        assert "Alt+G/F/L/M/S" in str(tree.border_subtitle), "its keys, in its border"
        await type_text(pilot, "/merge exp")
        assert app.editor.text == "/merge exp" and app.focused is app.editor
        assert not isinstance(app.screen, ConfirmDialog), "no merge was offered"
        assert not str(tree.border_title).startswith("▶ ")
        app.editor.replace_text("")
        await pilot.press("f2")
        panel = app.query_one(SkillPanel)
        await type_text(pilot, "ad")
        assert app.editor.text == "ad" and panel.loaded == {}, "nothing activated"
        app.editor.replace_text("")
        await app.controller.run("help")
        await screen_shown(pilot, ReportView, "the help view")
        await type_text(pilot, "x")
        await until(pilot, lambda: not isinstance(app.screen, ReportView), "the view to close")
        assert app.editor.text == "x" and app.focused is app.editor
        app.editor.replace_text("")
        await pilot.press("f4")
        assert app.focused is app.transcript
        selected = app.transcript.selected
        await type_text(pilot, "just do it")
        assert app.editor.text == "just do it" and app.focused is app.editor
        assert app.transcript.selected == selected, "j moved nothing, space expanded nothing"
        await pilot.press("f4")
        await terminal_keys(pilot, " now\r", burst=True)
        await until(pilot, lambda: "just do it now" in user_texts(app), "the message sent")
        assert app.editor.text == "", "the Enter was the editor's, not the chat's"
        await pilot.press("f3")
        await terminal_keys(pilot, "and again\r", burst=True)
        await until(pilot, lambda: "and again" in user_texts(app), "the second message sent")
        assert not isinstance(app.screen, ConfirmDialog) and app.editor.text == ""


async def two_questions(pilot, app) -> TreePanel:
    """Open the app, ask two questions; the tree panel, showing the second as where you are."""
    await opened(pilot)
    await ask(pilot, app, "first question")
    await ask(pilot, app, "second question")
    tree = app.query_one(TreePanel)
    await until(pilot, lambda: any("▶ › second" in x for x in tree_lines(tree)), "the tree")
    return tree


async def test_going_to_a_turn_shows_it_with_its_reply_and_says_what_stays_behind(
    make_app, script
) -> None:
    app = make_app(script({"text": "one"}, {"text": "two"}, {"text": "three"}))
    async with app.run_test(size=SIZE) as pilot:
        tree = await two_questions(pilot, app)
        await select(pilot, tree, "second question")  # where the conversation is
        await pilot.press("enter")
        await until(pilot, lambda: "You are there already" in chat_text(app), "the note")
        assert user_texts(app) == ["first question", "second question"]
        assert "two" in chat_text(app), "the reply stays on screen"

        await select(pilot, tree, "first question")
        await pilot.press("enter")
        await until(pilot, lambda: user_texts(app) == ["first question"], "the move")
        assert "one" in chat_text(app), "the turn is shown with its reply"
        await until(pilot, lambda: "Back at 'first question'" in chat_text(app), "where")
        assert "1 later turn stays on branch main (F3 to return)" in chat_text(app)
        await ask(pilot, app, "a third question")
        assert app.workbench.state().branch != "main", "a message from there starts a branch"
        assert "one" in chat_text(app) and "three" in chat_text(app)


async def test_edit_and_resend_puts_the_question_back_in_the_editor_before_it(
    make_app, script
) -> None:
    app = make_app(script({"text": "one"}, {"text": "two"}, {"text": "two again"}))
    async with app.run_test(size=SIZE) as pilot:
        tree = await two_questions(pilot, app)
        await select(pilot, tree, "second question")
        await terminal_keys(pilot, "\x1be")
        await until(pilot, lambda: app.editor.text == "second question", "the text to edit")
        assert app.focused is app.editor
        await until(pilot, lambda: user_texts(app) == ["first question"], "the chat to go back")
        assert "one" in chat_text(app)
        await pilot.press("end", *" please", "enter")
        await until(pilot, lambda: "two again" in chat_text(app), "the new answer")
        assert user_texts(app) == ["first question", "second question please"]
        branches = [b.name for b in (await app.workbench.tree()).branches]
        assert len(branches) == 2, "the old answer stays on its own branch"

        await select(pilot, tree, "first question")
        await terminal_keys(pilot, "\x1be")
        await until(pilot, lambda: "nothing before it" in chat_text(app), "the refusal")
        await select(pilot, tree, "⎇ main")
        await terminal_keys(pilot, "\x1be")
        await until(pilot, lambda: "only a question can be" in chat_text(app), "not a branch")


async def test_merge_is_not_offered_on_a_branch_with_no_parent(make_app, script) -> None:
    app = make_app(script({"text": "one"}))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await ask(pilot, app, "first question")
        tree = app.query_one(TreePanel)
        await select(pilot, tree, "⎇ main")
        await terminal_keys(pilot, "\x1bm")
        await until(pilot, lambda: "main has no parent branch" in chat_text(app), "the error")
        assert not isinstance(app.screen, ConfirmDialog)
        assert "Alt+F" in chat_text(app), "the hint names an in-app key"


async def test_on_a_narrow_screen_the_panels_fold_away_and_the_footer_keeps_what_matters(
    make_app, script
) -> None:
    long_model = script({"text": "one"})
    app = make_app(long_model)
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        side, chat = app.query_one("#side"), app.query_one("#chat")
        assert side.region.width == 0 and chat.region.width == 80, "the chat keeps the width"
        await pilot.press("f3")
        await until(pilot, lambda: side.region.width == 80, "the tree in the chat's place")
        assert app.focused is app.query_one(TreePanel)
        await type_text(pilot, "hi")
        await until(pilot, lambda: side.region.width == 0, "the panels folded again")
        assert app.editor.text == "hi" and chat.region.width == 80
        app.status_bar.change(busy=True, branch="experiment-with-a-long-name")
        footer = plain(app.status_bar.render(), 80)
        assert "⎇ experiment-with-a-long-name" in footer, footer
        assert "enforcer warn" in footer and "● working" in footer, footer
        assert len(footer.rstrip()) <= 78
    async with make_app(long_model).run_test(size=(160, 48)) as pilot:
        await opened(pilot)
        assert pilot.app.query_one("#side").region.width > 28, "wide: the panels show"


async def test_at_80_columns_the_skill_core_view_wraps_between_words(make_app) -> None:
    """The core projection is read whole at 80x24: its lines wrap between words, nothing is
    cut at the view's edge."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        await pilot.press("f2")
        panel = app.query_one(SkillPanel)
        await select(pilot, panel, "molecule-implement-change")
        await pilot.press("enter")
        await screen_shown(pilot, SkillDetail, "the skill view")
        await pilot.pause()
        projected = app.screen.query_one("#projected")
        skill = app.workbench.enforcer.skills.graph.get("molecule-implement-change")
        core = project(skill, "core")
        shown = [projected.render_line(y).text for y in range(projected.size.height)]
        assert max(len(line.rstrip()) for line in shown) <= projected.size.width
        assert " ".join(core.split()) in " ".join(" ".join(shown).split())


async def test_at_80x24_the_help_is_stacked_and_says_how_to_close(make_app) -> None:
    """F1 at 80x24: each key on its line with its description under it, not one word a line,
    the legend at the end, and "Esc closes" in view under the scrolled text."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        await pilot.press("f1")
        await screen_shown(pilot, ReportView, "the help view")
        await pilot.pause()
        view = app.screen
        text = plain(view.body, width=view.query_one(VerticalScroll).content_size.width)
        assert "Enter\n    send; while the agent works, steer: it hears you" in text
        assert "Legend" in text and "◇" in text and "enforcer block" in text
        drawn = html.unescape(
            " ".join(re.findall(r"<text[^>]*>(.*?)</text>", app.export_screenshot()))
        )
        assert "Esc closes" in drawn.replace("\xa0", " "), "the way out is on the screen"
