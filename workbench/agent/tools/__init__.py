"""The four built-in tools: read, write, edit, bash."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from workbench.agent.tools.bash import bash_tool
from workbench.agent.tools.edit import edit_tool
from workbench.agent.tools.read import read_tool
from workbench.agent.tools.write import write_tool
from workbench.errors import UsageError
from workbench.tool import Tool

BUILTIN_TOOLS: dict[str, Callable[[], Tool]] = {
    "read": read_tool,
    "bash": bash_tool,
    "edit": edit_tool,
    "write": write_tool,
}


def builtin_tools(names: Iterable[str] | None = None) -> list[Tool]:
    """The named built-in tools (all four by default); an unknown name is a usage error."""
    chosen = list(BUILTIN_TOOLS) if names is None else [n.strip() for n in names if n.strip()]
    unknown = [n for n in chosen if n not in BUILTIN_TOOLS]
    if unknown:
        raise UsageError(
            f"unknown tool {', '.join(unknown)}",
            f"built-in tools are {', '.join(BUILTIN_TOOLS)}",
        )
    return [BUILTIN_TOOLS[n]() for n in chosen]
