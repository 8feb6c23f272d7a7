"""A real MCP server made with the official SDK, for tests: `python mcp_server.py MARKER [MODE]`.

It writes MARKER when it starts (so a test sees whether it was started at all) and offers:
`echo` (the text back), `huge` (a result of `lines` lines), `crash` (the process exits mid-call),
`wait` (writes MARKER.waiting, waits until cancelled, then writes MARKER.cancelled), `fail` (an
error result) and `flood` (`count` log notifications written straight to stdout as fast as the
pipe takes them, then a result).
MODE `silent` never answers `initialize`; MODE `http` serves streamable HTTP (MODE `sse` the old
SSE transport) on a free loopback port and prints its URL on stdout.
"""

from __future__ import annotations

import os
import socket
import sys
import time
from pathlib import Path

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

marker = Path(sys.argv[1])
mode = sys.argv[2] if len(sys.argv) > 2 else "stdio"
marker.write_text(f"{os.getpid()}\n", encoding="utf-8")
server = MCPServer("test-server")
WIRE = os.dup(1)
"""The protocol's stdout, kept before the SDK diverts file descriptor 1 to stderr."""


@server.tool(description="Say the text back.")
def echo(text: str) -> str:
    print(f"echo called with {text}", file=sys.stderr, flush=True)
    return f"echo: {text}"


@server.tool(description="A very long result.")
def huge(lines: int) -> str:
    return "\n".join(f"line {n} " + "x" * 60 for n in range(lines))


@server.tool(description="Exit in the middle of the call.")
def crash() -> str:
    os._exit(3)


@server.tool(description="Wait until cancelled.")
async def wait() -> str:
    marker.with_suffix(".waiting").write_text("waiting\n", encoding="utf-8")
    try:
        await anyio.sleep(3600)
    except anyio.get_cancelled_exc_class():
        marker.with_suffix(".cancelled").write_text("cancelled\n", encoding="utf-8")
        raise
    return "done"


@server.tool(description="Fail.")
def fail() -> str:
    raise ToolError("this tool always fails")


@server.tool(description="Flood the client with notifications, then answer.")
def flood(count: int) -> str:
    line = (
        b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n'
    )
    for start in range(0, count, 1000):
        os.write(WIRE, line * min(1000, count - start))
    return f"flooded {count}"


def serve_http(sse: bool) -> None:
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    print(f"http://127.0.0.1:{sock.getsockname()[1]}/{'sse' if sse else 'mcp'}", flush=True)
    app = server.sse_app() if sse else server.streamable_http_app()
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])


if mode == "silent":
    time.sleep(3600)
elif mode in ("http", "sse"):
    serve_http(sse=mode == "sse")
else:
    server.run()
