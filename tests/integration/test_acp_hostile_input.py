"""`workbench --mode acp` given what a broken or hostile client sends: lines that are not one
JSON-RPC object, folders the protocol does not allow, empty session ids. Each gets an error
answer, and the agent goes on serving the sessions it has open (a real process over stdio)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from acp import RequestError
from support.acp_client import TIMEOUT, acp_workbench, prompt_blocks
from support.workbench_process import write_script

MALFORMED = [b"[]", b"42", b'"x"', b"null", b"true", b"{not json"]
BATCH = (
    b'[{"jsonrpc":"2.0","id":"batch-1","method":"session/list","params":{}},'
    b'{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"x"}}]'
)


async def test_a_message_that_is_not_an_object_is_answered_and_sessions_go_on(project):
    model = write_script(project, [{"text": "still here"}])
    async with acp_workbench(project, "--model", model) as (conn, client, _):
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        for line in [*MALFORMED, BATCH]:
            client.process.stdin.write(line + b"\n")
        await client.process.stdin.drain()

        def errors() -> list[dict]:
            return [m for m in client.incoming if "error" in m and m.get("id") is None]

        await client.wait_message(lambda _: len(errors()) >= len(MALFORMED))
        codes = [m["error"]["code"] for m in errors()]
        assert codes == [-32600] * 5 + [-32700], "invalid request each, a parse error for junk"
        assert "null" in errors()[3]["error"]["data"]["message"]
        batch = await client.wait_message(lambda m: m.get("id") == "batch-1")
        assert "batches are not accepted" in batch["error"]["data"]["message"]

        done = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt_blocks("hi")), 30)
        assert done.stop_reason == "end_turn"
        assert "still here" in client.text(sid)
        assert client.process.returncode is None, "the agent still runs"


async def test_a_folder_the_protocol_does_not_allow_and_an_empty_id_are_refused(project):
    model = write_script(project, [{"text": "fine"}])
    (project / "notes.txt").write_text("a file, not a folder\n")
    refusals = {
        "project": "absolute path",
        "": "absolute path",
        str(project / "notes.txt"): "not an existing folder",
        "/proc/1": "not writable",
        "/proc": "/proc",  # writable to root by its mode, yet no folder can be made there
    }
    async with acp_workbench(project, "--model", model) as (conn, _, _):
        for cwd, said in refusals.items():
            with pytest.raises(RequestError) as refused:
                await asyncio.wait_for(conn.new_session(cwd=cwd, mcp_servers=[]), TIMEOUT)
            assert refused.value.code == -32602 and said in refused.value.data["message"], cwd
        for empty in ["", "@", "@main"]:
            with pytest.raises(RequestError) as refused:
                await conn.load_session(cwd=str(project), session_id=empty, mcp_servers=[])
            assert "no session id" in refused.value.data["message"]
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        done = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt_blocks("hi")), 30)
        assert done.stop_reason == "end_turn"
    log = (Path(project).parent / "acp-stderr.log").read_text()
    assert "Traceback" not in log
