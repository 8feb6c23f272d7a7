"""The MCP servers a session hands on to the runs it starts as child processes (sub-agents, a
sweep's or an eval's runs): each child finds the user's servers and a trusted project's itself;
what only the session knows (an editor's servers, a `--mcp-config` file, `--no-mcp`) travels on
its command line."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from workbench.mcp.config import file_servers


def handed_servers(
    enabled: bool, config_file: Path | None, client: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    """`config_file`'s servers and the editor's (`.mcp.json` shaped, the editor's winning a
    name); None when the session starts none, so that its children start none either."""
    if not enabled:
        return None
    return {**(file_servers(config_file) if config_file else {}), **(client or {})}


def child_arguments(servers: Mapping[str, Any] | None, folder: Path) -> list[str]:
    """The child's MCP options: `--no-mcp` for None, else `--mcp-config` naming a private file
    in `folder` (headers may hold keys: never the command line); none when nothing is handed."""
    if servers is None:
        return ["--no-mcp"]
    if not servers:
        return []
    path = folder / "mcp.json"
    path.write_text(json.dumps({"mcpServers": dict(servers)}), encoding="utf-8")
    return ["--mcp-config", str(path)]
