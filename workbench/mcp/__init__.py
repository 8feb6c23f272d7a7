"""MCP servers: the tools people already run, offered to the model as `mcp__SERVER__TOOL`.

`config` reads which servers a session starts (the project's `.mcp.json` only when trusted, the
user's `~/.pi/agent/mcp.json`, an editor's), `servers` starts them and offers their tools,
`names` makes the tool names, `results` turns results into tool results, `connection` talks
to one server through the official SDK (imported only when a server is configured) and `stdio`
is the stdio transport it uses, which reads a server's output within bounds.
"""

from workbench.mcp.config import McpSetup, ServerConfig, load_setup, start_timeout
from workbench.mcp.names import is_mcp_name, server_prefix
from workbench.mcp.servers import McpServers, ServerStatus

__all__ = [
    "McpServers",
    "McpSetup",
    "ServerConfig",
    "ServerStatus",
    "is_mcp_name",
    "load_setup",
    "server_prefix",
    "start_timeout",
]
