"""The protocol's stdio, and an editor's first `session/new` answered on it before the protocol's
SDK is imported.

After `initialize` (`acp_handshake`) an editor asks for a session and waits; importing the SDK
(its schema: about 300 pydantic models) would come first and double that wait. So the next line
is read here: a plain `session/new` (no MCP servers of the editor's) opens the session with
workbench's own code (`acp_open`) and is answered from plain data, and the SDK, imported after,
takes the open session over (`acp.WorkbenchAgent`). Anything else — another request, MCP
servers to check, a session that does not open — goes to the SDK as it came, which answers it as
it always has. Lines that arrive meanwhile wait in the reader, in order, for the SDK.

stdout carries the protocol only: fd 1 is pointed at stderr for the whole process (stray prints,
child processes), and the protocol writes to a private copy of the real stdout.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from typing import Any

from workbench.errors import WorkbenchError
from workbench.modes import acp_open
from workbench.runtime import WorkbenchOptions

log = logging.getLogger(__name__)
BUFFER_LIMIT = 50 * 1024 * 1024
"""The reader's buffer: a line longer than this is read in parts (`next_line`)."""


async def protocol_streams() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """The reader of stdin and the writer of the real stdout; fd 1 is stderr from now on."""
    loop = asyncio.get_running_loop()
    protocol_out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)  # prints and child processes now write to stderr
    reader = asyncio.StreamReader(limit=BUFFER_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, flow = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, protocol_out)
    return reader, asyncio.StreamWriter(transport, flow, None, loop)


async def next_line(reader: asyncio.StreamReader) -> bytes:
    """One line, however long (the reader's limit only bounds each read); empty at the end."""
    chunks: list[bytes] = []
    while True:
        try:
            chunks.append(await reader.readuntil(b"\n"))
        except asyncio.LimitOverrunError as exc:
            chunks.append(await reader.readexactly(exc.consumed))
            continue
        except asyncio.IncompleteReadError as exc:
            chunks.append(exc.partial)
        return b"".join(chunks)


def _new_session(line: bytes) -> tuple[int | str, str] | None:
    """The id and `cwd` of a `session/new` request this module can answer, else None."""
    try:
        message: Any = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("method") != "session/new":
        return None
    request_id, params = message.get("id"), message.get("params")
    if not isinstance(request_id, (int, str)) or isinstance(request_id, bool):
        return None
    if not isinstance(params, dict) or params.get("mcpServers") != []:
        return None
    cwd = params.get("cwd")
    return (request_id, cwd) if isinstance(cwd, str) else None


async def answer_new_session(
    line: bytes, options: WorkbenchOptions, writer: asyncio.StreamWriter
) -> acp_open.Opened | None:
    """The session `line` asks for, opened and answered on `writer`; None when the SDK must
    read `line` itself (then nothing was opened or written)."""
    request = _new_session(line)
    if request is None:
        return None
    request_id, cwd = request
    try:
        opened = await acp_open.open_session(options, cwd)
    except (acp_open.BadParams, WorkbenchError):
        return None  # the SDK tries again and answers the error as it always has
    except Exception:
        log.exception("opening the first session failed; the SDK tries again")
        return None
    result = acp_open.new_session_result(opened.workbench)
    reply = {"jsonrpc": "2.0", "id": request_id, "result": result}
    writer.write(json.dumps(reply, separators=(",", ":")).encode() + b"\n")
    await writer.drain()
    return opened
