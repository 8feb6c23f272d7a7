"""What an editor gets back when it loads a session again (`session/load` in a fresh process):
the mode it set."""

from __future__ import annotations

from support.acp_client import acp_workbench
from support.workbench_process import write_script


async def test_a_mode_set_in_the_editor_comes_back_with_the_session(project):
    model = write_script(project, [{"text": "ok"}])
    async with acp_workbench(project, "--model", model) as (conn, _, _):
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        await conn.set_session_mode(session_id=sid, mode_id="block")
    async with acp_workbench(project, "--model", model) as (conn, _, _):
        loaded = await conn.load_session(cwd=str(project), session_id=sid, mcp_servers=[])
        assert loaded.modes.current_mode_id == "block"
