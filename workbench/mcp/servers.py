"""A session's MCP servers: started together at session start, offered as tools, reported.

The SDK runs on an event loop of its own in one background thread (`McpThread`): results are
converted and cut there, and only their text crosses over. That thread shares the GIL with the
app, so what it may hold is bounded too: a stdio server's messages are capped and long ones
parsed in another process (`stdio`). The servers start in parallel
within the time limit; the tool set is fixed once they have answered (the system prompt stays
byte-identical across turns, so prompt caches hit); a server that fails or times out is
reported and its tools are absent. Its stderr goes to the log file.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TextIO, TypeVar

from workbench.errors import WorkbenchError
from workbench.logfile import log_path
from workbench.mcp.config import ServerConfig, Source, Transport
from workbench.mcp.names import tool_name
from workbench.tool import Tool, ToolContext, ToolResult

if TYPE_CHECKING:
    from workbench.mcp.connection import ServerConnection

T = TypeVar("T")
State = Literal["starting", "ready", "failed"]


class McpThread:
    """The one background thread and event loop every session's MCP connections run on."""

    _lock = threading.Lock()
    _loop: asyncio.AbstractEventLoop | None = None

    @classmethod
    def loop(cls) -> asyncio.AbstractEventLoop:
        with cls._lock:
            if cls._loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="mcp", daemon=True).start()
                cls._loop = loop
            return cls._loop

    @classmethod
    async def run(cls, job: Coroutine[Any, Any, T]) -> T:
        """Run `job` on the MCP loop; cancelling the caller cancels it there."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(job, cls.loop()))


@dataclass
class ServerStatus:
    """What `/mcp`, `workbench mcp list` and `get_state` say of one server."""

    name: str
    source: Source
    transport: Transport
    state: State = "starting"
    tools: list[str] = field(default_factory=list)
    error: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "source": self.source,
            "transport": self.transport,
            "state": self.state,
            "tools": list(self.tools),
            "error": self.error,
        }


def describe(exc: BaseException) -> str:
    """A start failure in a sentence: the innermost cause of an exception group, and sign-in
    (OAuth) named as such, since workbench does not do it yet."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, WorkbenchError):
        return exc.message
    text = str(exc) or type(exc).__name__
    if "401" in text or "Unauthorized" in text:
        return f"it needs sign-in (OAuth), which workbench does not do yet ({text})"
    return f"{type(exc).__name__}: {text}"


class McpServers:
    """The servers of one session (see the module)."""

    def __init__(self, configs: list[ServerConfig], timeout: float) -> None:
        self.configs = configs
        self.timeout = timeout
        self.status = [ServerStatus(c.name, c.source, c.transport) for c in configs]
        self.tools: list[Tool] = []
        self.renamed: list[str] = []
        """Tools offered under a numbered name because theirs was taken, said at start."""
        self._connections: list[ServerConnection] = []
        self._errlog: TextIO | None = None

    def _log(self) -> TextIO:
        """The log file, where the servers' stderr goes (appended, line by line)."""
        path = log_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        return open(path, "a", encoding="utf-8", buffering=1)  # kept open till close

    async def start(self) -> None:
        """Start every server at once and wait for each (within the time limit)."""
        if not self.configs:
            return
        self._errlog = self._log()
        outcomes = await McpThread.run(self._start_all(self._errlog))
        for status, outcome in zip(self.status, outcomes, strict=True):
            if isinstance(outcome, BaseException):
                status.state, status.error = "failed", describe(outcome)
            else:
                status.state = "ready"

    def offer(self, taken: set[str]) -> list[Tool]:
        """The tools of the servers that answered, named apart from `taken` (which grows)."""
        for status, connection in zip(self.status, self._connections, strict=True):
            if status.state != "ready" or status.tools:
                continue
            for listed in connection.tools:
                name = tool_name(status.name, listed.name, taken)
                taken.add(name)
                if name != tool_name(status.name, listed.name, set()):
                    self.renamed.append(f"{status.name}'s {listed.name} is offered as {name}")
                self.tools.append(self._tool(name, connection, status, listed))
                status.tools.append(name)
        return list(self.tools)

    async def _start_all(self, errlog: TextIO) -> list[BaseException | None]:
        from workbench.mcp.connection import ServerConnection  # the SDK, on this thread only

        self._connections = [ServerConnection(c, errlog, self.timeout) for c in self.configs]
        jobs = [connection.connect() for connection in self._connections]
        return list(await asyncio.gather(*jobs, return_exceptions=True))

    def _tool(
        self, name: str, connection: ServerConnection, status: ServerStatus, listed: Any
    ) -> Tool:
        async def execute(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
            try:
                result = await McpThread.run(connection.call(listed.name, args))
            except WorkbenchError as exc:
                status.error = exc.message
                raise
            if result.details.get("crashed"):
                status.error = result.text
            return result

        schema = listed.input_schema or {"type": "object", "properties": {}}
        return Tool(name, _description(status.name, listed), dict(schema), execute)

    def failed(self) -> list[ServerStatus]:
        return [status for status in self.status if status.state == "failed"]

    def notices(self) -> list[str]:
        """What the session says at start: the servers that failed, and renamed tools."""
        said = [
            f"MCP server {s.name} did not start: {s.error}. Its tools are not offered; "
            "/mcp shows the servers, the log file their output."
            for s in self.failed()
        ]
        return said + [f"MCP tool name taken: {line}" for line in self.renamed]

    async def close(self) -> None:
        """End every server (in parallel) and close the log file they wrote to."""
        if self._connections:
            await McpThread.run(_close_all(self._connections))
        if self._errlog is not None:
            self._errlog.close()


async def _close_all(connections: list[ServerConnection]) -> None:
    await asyncio.gather(*(c.close() for c in connections), return_exceptions=True)


def _description(server: str, listed: Any) -> str:
    """The tool's own description, then what its annotations promise, then where it is from."""
    hints = []
    notes = listed.annotations
    if notes is not None:
        flags = [
            ("read-only", notes.read_only_hint),
            ("destructive", notes.destructive_hint),
            ("idempotent", notes.idempotent_hint),
            ("reaches outside systems", notes.open_world_hint),
        ]
        hints = [word for word, on in flags if on]
    title = getattr(notes, "title", None) or listed.title
    head = f"{title}: " if title else ""
    tail = f" ({', '.join(hints)})" if hints else ""
    return f"{head}{listed.description or ''}\n[MCP server {server}{tail}]".strip()
