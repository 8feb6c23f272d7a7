"""ACP sessions report the sandbox their commands run in (`_meta["workbench.sandbox"]`)."""

from __future__ import annotations

from pathlib import Path

from support.acp_client import acp_workbench


async def test_a_new_session_reports_its_sandbox_mode(work: Path) -> None:
    async with acp_workbench(work, "--sandbox", "strict", "--model", "demo") as (conn, _, _):
        new = await conn.new_session(cwd=str(work), mcp_servers=[])
        assert new.field_meta["workbench.sandbox"] == {"mode": "strict"}
