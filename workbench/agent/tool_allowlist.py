"""`--tools` (and an agent definition's `tools:`): exactly the tools the model is offered.

The allowlist covers every tool a session has: the built-in ones, the `subagent` tool, and the
tools extensions register (the enforcer's `skill_activate`, `skill_deactivate`, `prime_query`
among them). A name that no tool has is a usage error that lists the tools there are.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from workbench.errors import UsageError
from workbench.tool import Tool


def allowed_names(names: Sequence[str] | None) -> set[str] | None:
    """The names asked for, blanks dropped; None (every tool) when nothing was asked."""
    return None if names is None else {n.strip() for n in names if n.strip()}


def allowed_tools(tools: Iterable[Tool], names: Sequence[str] | None) -> list[Tool]:
    """The tools in `names`, in the session's order (every tool when `names` is None); a name
    that no tool has is a usage error."""
    tools = list(tools)
    wanted = allowed_names(names)
    if wanted is None:
        return tools
    unknown = sorted(wanted - {tool.name for tool in tools})
    if unknown:
        raise UsageError(
            f"unknown tool {', '.join(unknown)}",
            f"the tools are {', '.join(tool.name for tool in tools)}; --tools names every tool "
            "to offer (project extensions' tools need --trust)",
        )
    return [tool for tool in tools if tool.name in wanted]
