"""The four built-in tools (read, write, edit, bash), the check of a call's arguments against
a tool's schema (`arguments`) and the `--tools` allowlist (`allowlist`). May import `tool`,
`messages`, `config` and `errors`; never the loop."""

from __future__ import annotations

from collections.abc import Callable

from workbench.agent.tools.bash import bash_tool
from workbench.agent.tools.edit import edit_tool
from workbench.agent.tools.read import read_tool
from workbench.agent.tools.write import write_tool
from workbench.tool import Tool

BUILTIN_TOOLS: dict[str, Callable[[], Tool]] = {
    "read": read_tool,
    "bash": bash_tool,
    "edit": edit_tool,
    "write": write_tool,
}


def builtin_tools() -> list[Tool]:
    """All four; a session offers them with its other tools through `--tools`
    (`workbench.agent.tools.allowlist`)."""
    return [make() for make in BUILTIN_TOOLS.values()]
