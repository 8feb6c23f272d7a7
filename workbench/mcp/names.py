"""The names MCP tools are offered under: `mcp__SERVER__TOOL`.

Model APIs take tool names of `[a-zA-Z0-9_-]` up to 64 characters, so anything else becomes `_`,
the name is cut to 64, and a name that is already taken gets a number (`…_2`), which the session
reports. `--tools` and skills' `allowed-tools` use these names like any other tool's.
"""

from __future__ import annotations

import re

PREFIX = "mcp__"
MAX_LENGTH = 64
OUTSIDE = re.compile(r"[^a-zA-Z0-9_-]")


def clean(text: str) -> str:
    return OUTSIDE.sub("_", text)


def server_prefix(server: str) -> str:
    """What every tool name of `server` starts with (before the cut)."""
    return f"{PREFIX}{clean(server)}__"


def tool_name(server: str, tool: str, taken: set[str]) -> str:
    """A free name for `tool` of `server`; `taken` is not changed."""
    name = f"{server_prefix(server)}{clean(tool)}"[:MAX_LENGTH]
    number = 1
    candidate = name
    while candidate in taken:
        number += 1
        suffix = f"_{number}"
        candidate = name[: MAX_LENGTH - len(suffix)] + suffix
    return candidate


def is_mcp_name(name: str) -> bool:
    return name.startswith(PREFIX)
