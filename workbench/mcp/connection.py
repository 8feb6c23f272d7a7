"""One MCP server's connection, through the official SDK, on the MCP thread's event loop.

The SDK's client is an async context that must be entered and left by one task, so a holder task
keeps it open until `close`; calls run in tasks of their own. A server that dies during a call
gives a tool error that says so, and the next call starts it again. A call that is cancelled (the
user's abort) is abandoned by the SDK, which tells the server with `notifications/cancelled`.
A stdio server is spoken to through our own transport (`stdio`), not the SDK's. Importing this
module imports the SDK: only the MCP thread does, and only when a server is configured.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any, TextIO

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT
from mcp.shared.exceptions import MCPError
from mcp.types import CONNECTION_CLOSED, Implementation

from workbench import __version__
from workbench.errors import WorkbenchError
from workbench.mcp.config import ServerConfig
from workbench.mcp.http_bound import BoundedTransport
from workbench.mcp.results import to_tool_result
from workbench.mcp.stdio import capped_stdio
from workbench.tool import ToolResult

log = logging.getLogger(__name__)
CLIENT = Implementation(name="workbench", version=__version__)
STOP_S = 5.0
"""How long closing waits for a server to end before leaving it to the SDK's own kill."""


class ServerConnection:
    """A server's client session, opened by `connect` and reopened after a crash."""

    def __init__(self, config: ServerConfig, errlog: TextIO, timeout: float) -> None:
        self.config = config
        self.errlog = errlog
        self.timeout = timeout
        self.tools: list[Any] = []
        """The server's tools as it listed them at the first connection (`mcp.types.Tool`)."""
        self._client: Client | None = None
        self.needs_sign_in = False
        """An HTTP server answered 401: what a failed start is then reported as."""
        self._stop = asyncio.Event()
        self._holder: asyncio.Task[None] | None = None

    def _transport(self) -> Any:
        config = self.config
        if config.transport == "stdio":
            return StdioServerParameters(
                command=config.command,
                args=list(config.args),
                env=dict(config.env) or None,
                cwd=config.cwd,
            )
        headers = dict(config.headers) or None
        if config.transport == "sse":
            return sse_client(config.url, headers=headers, httpx_client_factory=self._http_client)
        return streamable_http_client(config.url, http_client=self._http_client(headers))

    def _http_client(self, headers: Any = None, timeout: Any = None, auth: Any = None) -> Any:
        """The SDK's HTTP client with its answers bounded (`http_bound`), noting a 401 answer:
        the SDK reports it only as "an error response", and the user needs to hear that the
        server wants a sign-in."""

        async def note(response: Any) -> None:
            self.needs_sign_in = self.needs_sign_in or response.status_code == 401

        default = httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT)
        return httpx2.AsyncClient(  # as the SDK's `create_mcp_http_client`, answers bounded
            headers=headers,
            timeout=timeout or default,
            auth=auth,
            transport=BoundedTransport(),
            event_hooks={"response": [note]},
        )

    @contextlib.asynccontextmanager
    async def _opened(self) -> AsyncIterator[Client]:
        transport = self._transport()
        if isinstance(transport, StdioServerParameters):
            transport = capped_stdio(transport, self.errlog)
        async with Client(transport, client_info=CLIENT, cache=None) as client:
            yield client

    async def connect(self) -> None:
        """Start the server and list its tools, within the time limit (WorkbenchError if not)."""
        ready: asyncio.Future[Client] = asyncio.get_running_loop().create_future()
        ready.add_done_callback(lambda done: done.cancelled() or done.exception())
        self._stop = asyncio.Event()
        self._holder = asyncio.create_task(self._hold(ready), name=f"mcp-{self.config.name}")
        try:
            client = await asyncio.wait_for(asyncio.shield(ready), self.timeout)
            tools = await asyncio.wait_for(self._list_tools(client), self.timeout)
        except TimeoutError:
            await self.close()
            raise WorkbenchError(
                f"MCP server {self.config.name} did not answer within {self.timeout:g} s",
                "see the log file for its output; the `mcp.timeout` setting gives it longer",
            ) from None
        except BaseException as exc:
            await self.close()
            if self.needs_sign_in:
                raise WorkbenchError(
                    f"MCP server {self.config.name} needs sign-in (OAuth), which workbench "
                    "does not do yet: it answered 401 Unauthorized",
                    'give it a token in `headers` ("Authorization": "Bearer ${TOKEN}") if it '
                    "takes one",
                ) from exc
            raise
        self._client = client
        if not self.tools:
            self.tools = tools

    async def _hold(self, ready: asyncio.Future[Client]) -> None:
        try:
            async with self._opened() as client:
                ready.set_result(client)
                await self._stop.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else RuntimeError(exc))
            elif not isinstance(exc, asyncio.CancelledError):
                log.warning("MCP server %s ended: %r", self.config.name, exc)
            if isinstance(exc, asyncio.CancelledError):
                raise

    @staticmethod
    async def _list_tools(client: Client) -> list[Any]:
        tools: list[Any] = []
        cursor: str | None = None
        while True:
            page = await client.list_tools(cursor=cursor)
            tools += page.tools
            cursor = page.next_cursor
            if cursor is None:
                return tools

    async def call(self, tool: str, arguments: dict[str, Any]) -> ToolResult:
        """Call `tool`; a server that died before is started again first."""
        name = self.config.name
        if self._client is None:
            await self.close()
            await self.connect()
        client = self._client
        assert client is not None
        try:
            result = await client.call_tool(tool, arguments)
        except MCPError as exc:
            if exc.code != CONNECTION_CLOSED:
                return ToolResult(f"MCP server {name}: {exc.error.message}", is_error=True)
            await self.close()
            return ToolResult(
                f"MCP server {name} stopped during the call ({exc.error.message}); it is "
                "started again at the next call",
                is_error=True,
                details={"mcp_server": name, "crashed": True},
            )
        return to_tool_result(name, result)

    async def close(self) -> None:
        """End the session and the server (its process group, for a stdio server)."""
        holder, connected = self._holder, self._client is not None
        self._holder = self._client = None
        if holder is None or holder.done():
            return
        self._stop.set()
        if connected:  # a polite end first: the SDK closes stdin and waits for the process
            with contextlib.suppress(TimeoutError, Exception):
                await asyncio.wait_for(asyncio.shield(holder), STOP_S)
        holder.cancel()
        await asyncio.gather(holder, return_exceptions=True)
