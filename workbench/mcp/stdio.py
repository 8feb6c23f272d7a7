"""Our stdio transport for MCP servers: the server's output read in bounded pieces.

The SDK's own stdio reader rebuilds a long line by adding chunk after chunk to a string (a 100 MB
result never finishes) and parses whatever arrives, on the thread every server shares with the
app through the GIL. This one reads 64 KB at a time and keeps a line only up to `MAX_MESSAGE`
bytes: a longer one is dropped unread, and the call it answers ends with an error that says so.
Notifications (logs, progress; workbench uses none of them) are passed on up to `NOTICES` a
second and the rest dropped before they are parsed: a server that floods them costs a split
line each, not the session's handling.
Process start and stop follow the SDK's: a process group of its own; stdin closed, a grace
period, then the group is killed.
"""

from __future__ import annotations

import logging
import marshal
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from typing import Any, TextIO

import anyio
import mcp_types as types
from anyio.abc import ByteReceiveStream, ByteSendStream, Process
from mcp import StdioServerParameters
from mcp.client._transport import TransportStreams
from mcp.client.stdio import get_default_environment
from mcp.os.posix.utilities import terminate_posix_process_tree
from mcp.shared.message import SessionMessage

log = logging.getLogger(__name__)
MAX_MESSAGE = 8 * 1024 * 1024
"""The longest message read from a server; results are cut to 50 KB for the model anyway, and
this leaves room for a few MB of image data (shown to the model as a note)."""
CHUNK = 64 * 1024
IN_THREAD = 512 * 1024
"""The longest line parsed on the MCP thread; a longer one is parsed in a process of its own."""
EDGE = 256
"""The bytes kept at each end of a dropped line: where its request id is."""
GRACE_S = 2.0
"""How long a server has to exit after its stdin closes, and after SIGTERM, before it is killed."""
NOTICES = 100
"""Notifications a second passed on from one server; the rest are dropped unparsed."""
_NOTIFICATION = re.compile(
    rb'\s*\{(?:\s*"jsonrpc"\s*:\s*"2\.0"\s*,)?\s*"method"\s*:\s*"notifications/'
)
"""A line that opens with a notification's method (no request's method starts so)."""
_ID = rb'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")'
_PARSER = "import json, marshal, sys; marshal.dump(json.load(sys.stdin.buffer), sys.stdout.buffer)"
_FIRST_ID = re.compile(rb'^\s*\{(?:\s*"jsonrpc"\s*:\s*"2\.0"\s*,)?\s*' + _ID)
_LAST_ID = re.compile(rb"[,{]\s*" + _ID + rb'\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$')


@dataclass
class Oversize:
    """A line longer than the cap: its size and its two ends."""

    size: int
    head: bytes
    tail: bytes

    def request_id(self) -> types.RequestId | None:
        """The top-level id, when it is the line's first key (after jsonrpc) or its last."""
        found = _FIRST_ID.match(self.head) or _LAST_ID.search(self.tail)
        if found is None:
            return None
        raw = found.group(1)
        return raw[1:-1].decode("utf-8", "replace") if raw.startswith(b'"') else int(raw)


class Lines:
    """Splits a byte stream into lines, keeping at most `cap` bytes of any one line."""

    def __init__(self, cap: int = MAX_MESSAGE) -> None:
        self.cap = cap
        self._parts: list[bytes] = []
        self._size = 0
        self._over: Oversize | None = None

    def feed(self, chunk: bytes) -> list[bytes | Oversize]:
        """The lines `chunk` completes (blank ones left out)."""
        done: list[bytes | Oversize] = []
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            self._add(chunk[start:end])
            line = self._take()
            if isinstance(line, Oversize) or line.strip():
                done.append(line)
            start = end + 1
        self._add(chunk[start:])
        return done

    def _add(self, piece: bytes) -> None:
        self._size += len(piece)
        if self._over is not None:
            self._over.tail = (self._over.tail + piece)[-EDGE:]
        elif self._size > self.cap:
            whole = b"".join(self._parts) + piece
            self._over = Oversize(0, whole[:EDGE], whole[-EDGE:])
            self._parts = []
        elif piece:
            self._parts.append(piece)

    def _take(self) -> bytes | Oversize:
        over, size, parts = self._over, self._size, self._parts
        self._over, self._size, self._parts = None, 0, []
        if over is not None:
            over.size = size
            return over
        return b"".join(parts)


def dropped(over: Oversize, pending: set[types.RequestId], cap: int) -> SessionMessage | None:
    """The error that ends the call a dropped line answered: the call its id names, or the one
    call waiting when no id could be read; None when no call waits for it (or it was a
    notification)."""
    request = over.request_id()
    if _NOTIFICATION.match(over.head):
        request = None  # a notification answers no call
    elif request not in pending:
        request = next(iter(pending)) if request is None and len(pending) == 1 else None
    log.warning("an MCP server sent %s in one message; dropped unread", megabytes(over.size))
    if request is None:
        return None
    pending.discard(request)
    message = (
        f"the server sent {megabytes(over.size)} in one message, over the {megabytes(cap)} "
        "workbench reads: it was dropped unread, so this call has no result"
    )
    error = types.ErrorData(code=types.INTERNAL_ERROR, message=message)
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=request, error=error))


class Notices:
    """How many notifications are passed on: `NOTICES` a second, counting those dropped."""

    def __init__(self, per_second: int = NOTICES) -> None:
        self.per_second = per_second
        self._start = 0.0
        self._passed = self.dropped = 0

    def passes(self, line: bytes) -> bool:
        """Whether `line` goes on: any message but a notification over the second's count."""
        if not _NOTIFICATION.match(line, 0, EDGE):
            return True
        now = anyio.current_time()
        if now - self._start >= 1.0:
            if self.dropped:
                log.warning("an MCP server flooded notifications: %d dropped", self.dropped)
            self._start, self._passed, self.dropped = now, 0, 0
        self._passed += 1
        self.dropped += self._passed > self.per_second
        return self._passed <= self.per_second


def megabytes(size: int) -> str:
    return f"{size / 2**20:.1f} MB"


async def parse(line: bytes) -> SessionMessage | Exception:
    """One line as a message, or the parse error (the session reports it). A line over
    `IN_THREAD` bytes is parsed by a Python process of its own: parsing holds the GIL, and a few
    MB would hold the app's keystrokes for longer than `IN_THREAD` is worth."""
    try:
        if len(line) <= IN_THREAD:
            parsed = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        else:
            parsed = types.jsonrpc_message_adapter.validate_python(
                await _parsed_apart(line), by_name=False
            )
        return SessionMessage(parsed)
    except ValueError as exc:
        log.warning("an MCP server sent a line that is not JSON-RPC: %s", exc)
        return exc


async def _parsed_apart(line: bytes) -> Any:
    """`line` parsed as JSON by another Python (isolated mode), handed back through `marshal`,
    which carries JSON's types and loads them as fast as memory copies."""
    done = await anyio.run_process([sys.executable, "-I", "-c", _PARSER], input=line, check=False)
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ValueError(said[-1] if said else f"the JSON parser ended with {done.returncode}")
    return marshal.loads(done.stdout)


@asynccontextmanager
async def capped_stdio(
    server: StdioServerParameters, errlog: TextIO, cap: int = MAX_MESSAGE
) -> AsyncIterator[TransportStreams]:
    """Start `server` and yield the session's read and write streams (see the module)."""
    process = await anyio.open_process(
        [server.command, *server.args],
        env=get_default_environment() | (server.env or {}),
        stderr=errlog,
        cwd=server.cwd,
        start_new_session=True,
    )
    to_session, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, from_session = anyio.create_memory_object_stream[SessionMessage](0)
    pending: set[types.RequestId] = set()
    """The ids of our requests not answered yet: a dropped line's error goes to one of them."""

    async def reader(stdout: ByteReceiveStream) -> None:
        lines, notices = Lines(cap), Notices()
        async with to_session:
            with suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                while True:
                    for line in lines.feed(await stdout.receive(CHUNK)):
                        if isinstance(line, bytes) and not notices.passes(line):
                            continue
                        message = (
                            dropped(line, pending, cap)
                            if isinstance(line, Oversize)
                            else await parse(line)
                        )
                        if message is None:
                            continue
                        answered = getattr(message, "message", None)
                        if isinstance(answered, types.JSONRPCResponse | types.JSONRPCError):
                            pending.discard(answered.id or "")
                        await to_session.send(message)

    async def writer(stdin: ByteSendStream) -> None:
        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async with from_session:
                async for outgoing in from_session:
                    sent = outgoing.message
                    if isinstance(sent, types.JSONRPCRequest):
                        pending.add(sent.id)
                    elif isinstance(sent, types.JSONRPCNotification) and (
                        sent.method == "notifications/cancelled"
                    ):
                        pending.discard((sent.params or {}).get("requestId"))
                    data = sent.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                    await stdin.send(data.encode("utf-8"))
        await to_session.aclose()  # the server is gone: the session sees the connection end

    assert process.stdout is not None and process.stdin is not None
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(reader, process.stdout)
        tasks.start_soon(writer, process.stdin)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                await read_stream.aclose()
                await write_stream.aclose()
                await _stop(process)
            tasks.cancel_scope.cancel()


async def _stop(process: Process) -> None:
    """Close stdin, give the server `GRACE_S` to exit, then end its whole process group."""
    assert process.stdin is not None and process.stdout is not None
    with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdin.aclose()
    with anyio.move_on_after(GRACE_S):
        while process.returncode is None:
            await anyio.sleep(0.01)
    if process.returncode is None:
        await terminate_posix_process_tree(process, GRACE_S)
    with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdout.aclose()
