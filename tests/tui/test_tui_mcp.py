"""MCP servers in the app: the footer marks a server that did not start, `/mcp` says why."""

from __future__ import annotations

from pathlib import Path

from support.app_pilot import SIZE, items, plain, until
from support.mcp_config import allow_start, user_file, write_servers
from test_tui_commands import command

from workbench.tui.components.report_view import ReportView
from workbench.tui.items import NoteItem


async def test_a_failed_server_is_marked_in_the_footer_and_explained_by_mcp(
    make_app, project: Path
) -> None:
    allow_start()
    write_servers(user_file(), {"gone": {"command": str(project / "no-such-server")}})
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        # the SDK's import takes seconds on a loaded machine: a limit against a hang only
        await until(pilot, app.opened.is_set, "the session to open", timeout=120)
        await until(pilot, lambda: "MCP gone" in plain(app.status_bar.render(), 200), "marker")
        assert "✗ MCP gone" in plain(app.status_bar.render(), 200)
        await command(pilot, app, "/mcp")
        if isinstance(app.screen, ReportView):
            shown = plain(app.screen.body)
        else:
            shown = "\n".join(i.text for i in items(app) if isinstance(i, NoteItem))
        assert "gone (user, stdio): failed" in shown.lower()
        assert "last error:" in shown
