"""MCP servers in `Workbench`: which ones this session starts, what it says about them, and
`/mcp` (see `workbench.mcp`).

The servers start while the session opens, before its tools are fixed: the tool set and the
system prompt then stay byte-identical across turns. A project's `.mcp.json` waits for trust
(the refusal names its servers and how to trust); trusting the project in the session starts
them then. `--tools` may name an MCP tool whose server did not start: that is a warning, not a
usage error, so a session goes on without a server that is down.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.agent.events import Notice
from workbench.config import Settings
from workbench.mcp import (
    McpServers,
    McpSetup,
    ServerStatus,
    is_mcp_name,
    load_setup,
    server_prefix,
    start_timeout,
)
from workbench.runtime.options import WorkbenchOptions
from workbench.tool import Tool
from workbench.trust import how_to_trust


@dataclass
class McpReport:
    """What `/mcp`, `workbench mcp list` and RPC `get_state` show: each server's source, state,
    tools and last error, and the project's servers waiting for trust."""

    servers: list[ServerStatus] = field(default_factory=list)
    untrusted: list[str] = field(default_factory=list)
    project_root: str = ""

    def render_text(self) -> str:
        if not self.servers and not self.untrusted:
            return (
                "No MCP servers are configured: add them to the project's .mcp.json or to "
                "~/.pi/agent/mcp.json (see docs/mcp.md)."
            )
        lines = []
        for server in self.servers:
            where = f"{server.source}, {server.transport}"
            lines.append(f"{server.name} ({where}): {server.state}")
            if server.tools:
                lines.append(f"  tools: {', '.join(server.tools)}")
            if server.error:
                lines.append(f"  last error: {server.error}")
        for name in self.untrusted:
            lines.append(f"{name} (project): not started, the project is not trusted")
        if self.untrusted:
            lines.append(f"  to start them: {how_to_trust(Path(self.project_root))}")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "servers": [server.to_json() for server in self.servers],
            "untrusted": list(self.untrusted),
        }


class McpControls:
    """The session's MCP servers (none when `--no-mcp` or an agent's `mcp: none`)."""

    def __init__(self, options: WorkbenchOptions, settings: Settings, project_root: Path) -> None:
        self.options = options
        self.project_root = project_root
        self.timeout = start_timeout(settings)
        self.setup = self._setup(settings, settings.trusted)
        self.servers = [McpServers(self.setup.servers, self.timeout)]
        self.warnings: list[str] = []
        self._starting: asyncio.Future[None] | None = None

    def _setup(self, settings: Settings, trusted: bool) -> McpSetup:
        if not self.options.mcp:
            return McpSetup()
        return load_setup(
            self.project_root,
            settings,
            trusted,
            self.options.mcp_servers,
            self.options.mcp_config,
        )

    def begin(self) -> None:
        """Start the servers in the background (in parallel, each within the time limit)."""
        if self._starting is None:
            self._starting = asyncio.ensure_future(self.servers[0].start())

    async def offered(
        self, tools: list[Tool], names: Sequence[str] | None
    ) -> tuple[list[Tool], list[str] | None]:
        """Once the servers have answered: `tools` and theirs (named apart from `tools`), and
        `--tools` without the MCP tools whose server is not running (each of those a warning,
        said with the other notices)."""
        self.begin()
        assert self._starting is not None
        await self._starting
        tools = [*tools, *self.servers[0].offer({tool.name for tool in tools})]
        return tools, None if names is None else self._wanted(names)

    def _wanted(self, names: Sequence[str]) -> list[str]:
        offered = {tool.name for group in self.servers for tool in group.tools}
        down = [s.name for s in self.failed()] + list(self.setup.untrusted)
        kept = []
        for name in (n.strip() for n in names):
            server = next((s for s in down if name.startswith(server_prefix(s))), None)
            if is_mcp_name(name) and name not in offered and server is not None:
                self.warnings.append(
                    f"--tools names {name}, but MCP server {server} is not running"
                )
            else:
                kept.append(name)
        return kept

    def failed(self) -> list[ServerStatus]:
        return [status for group in self.servers for status in group.failed()]

    def notices(self) -> list[Notice]:
        """What the session says at start about its servers."""
        said = [Notice(problem, "warning") for problem in self.setup.problems]
        if self.setup.untrusted:
            said.append(
                Notice(
                    f"the project's .mcp.json asks to start MCP servers "
                    f"{', '.join(self.setup.untrusted)}: they start only in a trusted project "
                    f"({how_to_trust(self.project_root)})",
                    "warning",
                )
            )
        texts = [*self.servers[0].notices(), *self.warnings]
        return said + [Notice(text, "warning") for text in texts]

    async def trust(self, settings: Settings, taken: set[str]) -> tuple[list[Tool], list[Notice]]:
        """The project is trusted now: start the servers of its `.mcp.json`; their tools, and
        notices of those that did not start."""
        untrusted, self.setup.untrusted = self.setup.untrusted, []
        if not untrusted:
            return [], []
        servers = [s for s in self._setup(settings, True).servers if s.name in untrusted]
        group = McpServers(servers, self.timeout)
        self.servers.append(group)
        await group.start()
        return group.offer(taken), [Notice(text, "warning") for text in group.notices()]

    def report(self) -> McpReport:
        statuses = [status for group in self.servers for status in group.status]
        return McpReport(statuses, list(self.setup.untrusted), str(self.project_root))

    async def close(self) -> None:
        if self._starting is not None and not self._starting.done():
            self._starting.cancel()
            await asyncio.gather(self._starting, return_exceptions=True)
        for group in self.servers:
            await group.close()
