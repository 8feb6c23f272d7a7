"""The editor draws in the colours its styles give it now: it copies them into its drawing theme
once for each change of them, not at each keystroke's draw, and a change is never missed."""

from __future__ import annotations

from typing import Any

from rich.style import Style
from support.app_pilot import SIZE, opened
from textual.pilot import Pilot

from workbench.tui.app import WorkbenchApp


def cell(app: WorkbenchApp, x: int) -> Style:
    """The style of the editor's first line at column `x` of its text, as the screen shows it."""
    region = app.editor.content_region
    line = app.screen._compositor.render_strips()[region.y]
    style = next(iter(line.crop(region.x + x, region.x + x + 1))).style
    assert style is not None
    return style


async def settled(pilot: Pilot[Any]) -> None:
    await pilot.pause()
    await pilot.pause()


async def test_after_a_change_of_theme_the_editor_draws_its_text_and_cursor_in_its_colours(
    make_app,
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        app.editor.insert("hello")
        backgrounds = set()
        for theme in ("textual-light", "textual-dark", "textual-light"):
            app.transcript.focus()
            app.theme = theme
            await settled(pilot)
            app.editor.focus()
            await settled(pilot)
            cursor = app.editor.get_component_rich_style("text-area--cursor")
            assert cell(app, 5).bgcolor == cursor.bgcolor, f"the cursor, in {theme}"
            backgrounds.add(cell(app, 0).bgcolor)
        assert len(backgrounds) == 2
