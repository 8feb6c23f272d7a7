"""The loopback server litellm's warm-up call (`litellm_client.preload`) talks to: it answers
with a reply as a turn gets one (text, a tool call, the finish, the usage), since each kind of
chunk, and a request that offers tools, makes litellm and openai import and build things the
first time. A run forked from a warm interpreter then finds them done (50 ms of litellm's MCP
handling alone, before this reply offered a tool)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from workbench.tool import Tool, ToolContext, ToolResult

_CHUNK = b'data: {"id":"w","object":"chat.completion.chunk","created":0,"model":"w",'
REPLY = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
    + _CHUNK
    + b'"choices":[{"index":0,"delta":{"role":"assistant","content":"ok"}}]}\n\n'
    + _CHUNK
    + b'"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","type":"function",'
    b'"function":{"name":"warm_up","arguments":"{}"}}]}}]}\n\n'
    + _CHUNK
    + b'"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\n'
    + _CHUNK
    + b'"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}\n\n'
    + b"data: [DONE]\n\n"
)


async def _never_called(_arguments: dict[str, Any], _context: ToolContext) -> ToolResult:
    return ToolResult("")


TOOL = Tool("warm_up", "", {"type": "object"}, _never_called)
"""The tool the warm-up request offers."""


@contextlib.asynccontextmanager
async def loopback_reply() -> AsyncIterator[str]:
    """A server on a free loopback port that answers every request with `REPLY`; its API base."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(REPLY)
        await writer.drain()
        writer.close()

    stub = await asyncio.start_server(answer, "127.0.0.1", 0)
    try:
        yield f"http://127.0.0.1:{stub.sockets[0].getsockname()[1]}/v1"
    finally:
        stub.close()
        await stub.wait_closed()
