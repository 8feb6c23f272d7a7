"""An editor's MCP servers (ACP `mcpServers` in `session/new`) start in the session it opens and
their tools answer the model, and `session/cancel` during a call tells the server:
`workbench --mode acp` as a real process, the protocol's SDK as the client, the local SSE model
server calling the tool."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from acp.schema import McpServerStdio
from support.acp_client import TIMEOUT, acp_workbench, prompt_blocks
from support.mcp_config import SERVER, allow_start, wait_for
from support.openai_server import OpenAIServer, Reply


async def test_an_editors_server_is_started_and_its_tool_answers(
    project: Path, server: OpenAIServer, tmp_path: Path
) -> None:
    allow_start()
    marker = tmp_path / "editor.started"
    server.add(
        Reply(
            text="asking the editor's server",
            tool_calls=[{"name": "mcp__ed__echo", "arguments": {"text": "from ACP"}, "id": "c1"}],
        ),
        Reply(text="it answered"),
    )
    args = ("--model", "openai/test", "--api-base", server.url, "--api-key", "none")
    async with acp_workbench(project, *args) as (conn, _client, init):
        assert init.agent_capabilities.mcp_capabilities.http
        editor = McpServerStdio(
            name="ed", command=sys.executable, args=[str(SERVER), str(marker)], env=[]
        )
        new = await asyncio.wait_for(
            conn.new_session(cwd=str(project), mcp_servers=[editor]), TIMEOUT
        )
        [ed] = new.field_meta["workbench"]["mcpServers"]["servers"]
        assert (ed["source"], ed["state"]) == ("client", "ready")
        assert "mcp__ed__echo" in ed["tools"]
        assert marker.exists()
        done = await asyncio.wait_for(
            conn.prompt(session_id=new.session_id, prompt=prompt_blocks("ask it")), TIMEOUT
        )
        assert done.stop_reason == "end_turn"
    tool_messages = [m for m in server.requests[1]["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in tool_messages] == ["echo: from ACP"]


async def test_session_cancel_during_a_call_ends_the_turn_and_tells_the_server(
    project: Path, server: OpenAIServer, tmp_path: Path
) -> None:
    allow_start()
    marker = tmp_path / "slow.started"
    server.add(
        Reply(
            text="waiting on the server",
            tool_calls=[{"name": "mcp__slow__wait", "arguments": {}, "id": "c1"}],
        )
    )
    args = ("--model", "openai/test", "--api-base", server.url, "--api-key", "none")
    async with acp_workbench(project, *args) as (conn, client, _init):
        editor = McpServerStdio(
            name="slow", command=sys.executable, args=[str(SERVER), str(marker)], env=[]
        )
        new = await asyncio.wait_for(
            conn.new_session(cwd=str(project), mcp_servers=[editor]), TIMEOUT
        )
        sid = new.session_id
        running = asyncio.create_task(conn.prompt(session_id=sid, prompt=prompt_blocks("wait")))
        assert await asyncio.to_thread(wait_for, marker.with_suffix(".waiting"))
        await conn.cancel(session_id=sid)
        done = await asyncio.wait_for(running, TIMEOUT)
        assert done.stop_reason == "cancelled"
        assert await asyncio.to_thread(wait_for, marker.with_suffix(".cancelled"))
        ended: list[Any] = [
            u for u in client.of(sid, "tool_call_update") if u.status in ("failed", "completed")
        ]
        assert [u.tool_call_id for u in ended] == ["c1"], "the call was not closed for the editor"
