"""The footer and `/status` show the sandbox mode the session's commands run in."""

from __future__ import annotations

from support.app_pilot import opened, plain

from workbench.sandbox.detect import bwrap_problem
from workbench.tui.reports import status_report


async def test_the_footer_and_status_show_the_sandbox_mode(make_app) -> None:
    app = make_app(sandbox="strict" if bwrap_problem() is None else "off")
    async with app.run_test(size=(160, 48)) as pilot:
        await opened(pilot)
        mode = app.workbench.state().sandbox
        assert f"sandbox {mode}" in plain(app.status_bar.render(), 160)
        status = await app.workbench.status()
        assert f"sandbox: {mode}" in status.render_text()
        assert status.to_json()["sandbox"] == mode
        assert f"sandbox        {mode}" in plain(status_report(status), 160)
