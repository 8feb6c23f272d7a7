"""`initialize` and the first `session/new` are answered by hand before the ACP SDK is imported
(`acp_handshake`, `acp_early`): the answers are the SDK's own, and every message after them (or a
first message that is not `initialize`) still reaches the SDK, however the client writes them."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, spawn_agent_process
from acp.connection import StreamDirection, StreamEvent
from acp.schema import InitializeResponse, NewSessionResponse
from support.acp_client import RecordingClient, prompt_blocks
from support.workbench_process import workbench_command, write_script

from workbench.modes.acp_handshake import PROTOCOL_VERSION as HANDWRITTEN_VERSION
from workbench.modes.acp_handshake import initialize_result

TIMEOUT = 60


def exchange(project: Path, *messages: dict[str, Any]) -> list[dict[str, Any]]:
    """Write `messages` in one go, close stdin, and return the agent's responses."""
    lines = "".join(json.dumps({"jsonrpc": "2.0", **m}) + "\n" for m in messages)
    done = subprocess.run(
        workbench_command("--mode", "acp", "--model", "demo"),
        cwd=project,
        input=lines,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    answers = [r for r in replies if "id" in r and "method" not in r]
    return sorted(answers, key=lambda r: r["id"])  # the SDK answers requests concurrently


def test_the_handwritten_answer_is_what_the_sdk_would_send() -> None:
    assert HANDWRITTEN_VERSION == PROTOCOL_VERSION
    parsed = InitializeResponse.model_validate(initialize_result())
    sent = parsed.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_unset=True)
    assert sent == initialize_result()


def test_messages_written_with_initialize_reach_the_sdk(tmp_path: Path) -> None:
    replies = exchange(
        tmp_path,
        {"id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
        {"id": 2, "method": "session/list", "params": {"cwd": str(tmp_path)}},
        {"id": 3, "method": "initialize", "params": {"protocolVersion": 1}},
    )
    assert [r["id"] for r in replies] == [1, 2, 3]
    assert replies[0]["result"] == initialize_result() == replies[2]["result"]
    assert replies[1]["result"] == {"sessions": []}


def test_a_first_message_other_than_initialize_is_the_sdks(tmp_path: Path) -> None:
    replies = exchange(
        tmp_path,
        {"id": 7, "method": "session/list", "params": {"cwd": str(tmp_path)}},
        {"id": 8, "method": "initialize", "params": {}},
    )
    assert replies[0] == {"jsonrpc": "2.0", "id": 7, "result": {"sessions": []}}
    assert replies[1]["id"] == 8 and "error" in replies[1]  # no protocol version: invalid


HELD_SDK = """
import os, sys
from workbench.cli import main

class HoldTheSdk:
    \"\"\"The ACP SDK's import waits until the test writes to the pipe ACP_GATE names.\"\"\"

    def find_spec(self, name, path=None, target=None):
        if name == "acp":
            sys.meta_path.remove(self)
            with open(os.environ["ACP_GATE"], "rb") as gate:
                gate.read(1)
        return None

sys.meta_path.insert(0, HoldTheSdk())
sys.exit(main(sys.argv[1:]))
"""


async def test_session_new_is_answered_before_the_sdk_loads_and_a_prompt_sent_meanwhile_runs(
    project: Path,
) -> None:
    gate = project.parent / "gate"
    os.mkfifo(gate)
    model = write_script(project, [{"text": "fine"}])
    client = RecordingClient()
    prompted = asyncio.Event()

    def sent(event: StreamEvent) -> None:
        method = event.message.get("method")
        if event.direction is StreamDirection.OUTGOING and method == "session/prompt":
            prompted.set()

    command = ("-c", HELD_SDK, "--mode", "acp", "--model", model)
    async with spawn_agent_process(
        client,
        sys.executable,
        *command,
        env={**os.environ, "ACP_GATE": str(gate)},
        cwd=project,
        observers=[client.observe, sent],
    ) as (conn, _):
        await asyncio.wait_for(conn.initialize(protocol_version=PROTOCOL_VERSION), TIMEOUT)
        new = await asyncio.wait_for(conn.new_session(cwd=str(project), mcp_servers=[]), TIMEOUT)
        sid = new.session_id
        assert new.modes is not None and new.modes.current_mode_id == "warn"
        assert new.config_options is not None and new.config_options[0].current_value == model
        answer = next(m for m in client.incoming if m.get("result", {}).get("sessionId") == sid)
        sdk = NewSessionResponse.model_validate(answer["result"])
        dumped = sdk.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_unset=True)
        assert dumped == answer["result"], "the SDK would have written the same answer"

        prompt = asyncio.create_task(conn.prompt(session_id=sid, prompt=prompt_blocks("hi")))
        await asyncio.wait_for(prompted.wait(), TIMEOUT)  # written while the SDK is held
        await asyncio.wait_for(asyncio.to_thread(gate.write_bytes, b"go"), TIMEOUT)
        done = await asyncio.wait_for(prompt, TIMEOUT)
        assert done.stop_reason == "end_turn"
        assert client.text(sid) == "fine"
        assert "available_commands_update" in [u.session_update for u in client.of(sid)]


async def test_an_editor_quitting_while_the_sdk_loads_ends_the_agent_cleanly(
    project: Path,
) -> None:
    from workbench.logfile import log_path

    (project / ".pi" / "extensions").mkdir(parents=True)
    (project / ".pi" / "extensions" / "hello.py").write_text("def register(api):\n    pass\n")
    gate = project.parent / "gate"  # the extension waits for trust: a notice after the answer
    os.mkfifo(gate)
    agent = await asyncio.create_subprocess_exec(
        sys.executable,
        *("-c", HELD_SDK, "--mode", "acp", "--model", "demo"),
        cwd=project,
        env={**os.environ, "ACP_GATE": str(gate)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert agent.stdin is not None and agent.stdout is not None
    for number, method, params in [
        (1, "initialize", {"protocolVersion": 1}),
        (2, "session/new", {"cwd": str(project), "mcpServers": []}),
    ]:
        line = {"jsonrpc": "2.0", "id": number, "method": method, "params": params}
        agent.stdin.write(json.dumps(line).encode() + b"\n")
        answer = json.loads(await asyncio.wait_for(agent.stdout.readline(), TIMEOUT))
        assert answer["id"] == number and "result" in answer
    agent.send_signal(signal.SIGTERM)  # while the SDK is held
    await asyncio.wait_for(asyncio.to_thread(gate.write_bytes, b"go"), TIMEOUT)
    assert await asyncio.wait_for(agent.wait(), TIMEOUT) == 128 + signal.SIGTERM
    logged = log_path().read_text() if log_path().exists() else ""
    assert "ERROR" not in logged, logged
