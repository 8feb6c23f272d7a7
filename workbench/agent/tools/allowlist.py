"""`--tools` (and an agent definition's `tools:`): exactly the tools the model is offered.

The allowlist covers every tool a session has: the built-in ones, the `subagent` tool, and the
tools extensions register (the enforcer's `skill_activate`, `skill_deactivate`, `prime_query`
among them). A name that no tool has is a usage error that lists the tools there are.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from workbench.errors import UsageError
from workbench.tool import Tool


def offered_tools(tools: Iterable[Tool], names: Sequence[str] | None) -> list[Tool]:
    """The tools in `names` (blanks ignored), in the session's order; every tool when None."""
    if names is None:
        return list(tools)
    wanted = {n.strip() for n in names if n.strip()}
    return [tool for tool in tools if tool.name in wanted]


def allowed_tools(tools: Iterable[Tool], names: Sequence[str] | None) -> list[Tool]:
    """`offered_tools`, once every name in `names` is known to be a tool's (else a usage error)."""
    tools = list(tools)
    unknown = sorted({n.strip() for n in names or () if n.strip()} - {t.name for t in tools})
    if unknown:
        raise UsageError(
            f"unknown tool {', '.join(unknown)}",
            f"the tools are {', '.join(tool.name for tool in tools)}; --tools names every tool "
            "to offer (project extensions' tools need --trust)",
        )
    return offered_tools(tools, names)
