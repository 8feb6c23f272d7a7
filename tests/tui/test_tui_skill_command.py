"""`/skill:NAME request` reads as typed: one line in the chat (the skill's text folded under it,
there to expand) and in the conversation tree, not the `<skill …>` text the model is sent."""

from __future__ import annotations

from support.app_pilot import SIZE, idle, items, opened, plain, tree_lines, type_text

from workbench.tui.components.item_row import ItemRow
from workbench.tui.components.tree_panel import TreePanel
from workbench.tui.items import UserItem


async def test_a_skill_command_shows_as_typed_with_the_skill_folded(make_app) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await type_text(pilot, "/skill:compound-ship-change fix the login bug")
        await pilot.press("escape")  # close the completion list: the words stay as typed
        await pilot.press("enter")
        await idle(pilot)
        asked = next(item for item in items(app) if isinstance(item, UserItem))
        assert "<skill name=" in asked.text, "the model gets the skill's text"
        row = next(row for row in app.transcript.live if row.item is asked)
        assert isinstance(row, ItemRow)
        shown = plain(row.render(), 100).strip()
        assert shown == "❯ /skill:compound-ship-change fix the login bug  (skill text folded)"
        row.toggle()
        assert "<skill name=" in plain(row.render(), 100), "expanded, the skill's text shows"
        lines = tree_lines(app.query_one(TreePanel))
        assert any("› /skill:compound-ship-change fix" in line for line in lines), lines
        assert not any("<skill" in line for line in lines), lines
