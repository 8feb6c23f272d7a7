"""`initialize` is answered by hand before the ACP SDK is imported (`acp_handshake`): the answer
is the SDK's own, and every message after it (or a first message that is not `initialize`)
still reaches the SDK, however the client writes them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION
from acp.schema import InitializeResponse
from support.workbench_process import workbench_command

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
