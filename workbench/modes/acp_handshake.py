"""The first exchange of `--mode acp`, answered before the protocol's SDK is imported.

An editor sends `initialize` the moment it spawns the agent and waits for the answer, and the
SDK's schema alone takes about a second to import. So the first line on stdin is read here, byte
by byte (nothing past it is taken from the stream the SDK reads next), and an `initialize`
request is answered from plain data; any other first line is handed to the SDK as it came.
"""

from __future__ import annotations

import json
import os
from typing import Any

from workbench import __version__

PROTOCOL_VERSION = 1
"""The SDK's `acp.PROTOCOL_VERSION` (a test keeps the two equal)."""
MAX_LINE = 1 << 20
"""A first line longer than this is not an `initialize` request: the SDK gets it whole."""


def initialize_result() -> dict[str, Any]:
    """The `initialize` result, as the SDK would write `InitializeResponse` (camelCase)."""
    return {
        "protocolVersion": PROTOCOL_VERSION,
        "agentCapabilities": {
            "loadSession": True,
            "promptCapabilities": {"image": False, "audio": False, "embeddedContext": True},
            "sessionCapabilities": {"list": {}, "fork": {}},
            "mcpCapabilities": {"http": True, "sse": True},
        },
        "agentInfo": {"name": "workbench", "title": "Workbench", "version": __version__},
    }


def read_line(fd: int = 0) -> bytes:
    """The first line on `fd`, newline included (shorter at end of input or past `MAX_LINE`)."""
    line = bytearray()
    while len(line) <= MAX_LINE:
        byte = os.read(fd, 1)
        if not byte:
            break
        line += byte
        if byte == b"\n":
            break
    return bytes(line)


def answer(line: bytes, out: int = 1) -> bool:
    """Write the reply to `line` on `out` when it is an `initialize` request; True when it was
    (the SDK then starts with the next line), False when the SDK must read `line` itself."""
    try:
        message = json.loads(line)
    except ValueError:
        return False
    if not (isinstance(message, dict) and message.get("method") == "initialize"):
        return False
    if "id" not in message or not isinstance(message.get("params"), dict):
        return False  # a malformed request: the SDK answers it with the proper error
    reply = {"jsonrpc": "2.0", "id": message["id"], "result": initialize_result()}
    data = json.dumps(reply, separators=(",", ":")).encode() + b"\n"
    while data:
        data = data[os.write(out, data) :]
    return True
