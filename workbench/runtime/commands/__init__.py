"""The command registry: every command declared once (name, usage, one-line help, arguments,
the runtime call, the surfaces that offer it, the one text rendering of its result).

The CLI's subcommand list, the app's completion, palette and help, an editor's (ACP) command
list and the RPC table are all read from here; an extension's commands (`extension_api.Command`)
join them per session through `offered`. Adding a command is one entry in a group's module plus
its `Workbench` method. Importing the registry imports none of the runtime's parts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.runtime.commands import (
    agent_commands,
    front_commands,
    session_commands,
    skill_commands,
    sweep_commands,
    tree_commands,
)
from workbench.runtime.commands.registry import (
    SURFACES,
    AnyCommand,
    Args,
    Argument,
    ArgumentSource,
    CommandSpec,
    Surface,
    extension_spec,
)

if TYPE_CHECKING:
    from workbench.runtime.workbench import Workbench

COMMANDS: list[AnyCommand] = [
    *tree_commands.COMMANDS,
    *agent_commands.COMMANDS,
    *skill_commands.COMMANDS,
    *session_commands.COMMANDS,
    *sweep_commands.COMMANDS,
    *front_commands.COMMANDS,
]
"""Every built-in command, read anew by each front end; a name is taken once per surface."""


def builtin(surface: Surface) -> list[AnyCommand]:
    """The built-in commands one surface offers, in the registry's order."""
    return [spec for spec in COMMANDS if spec.offered(surface)]


def find(surface: Surface, name: str) -> AnyCommand | None:
    return next((spec for spec in builtin(surface) if spec.name == name), None)


def get(surface: Surface, name: str) -> AnyCommand:
    """A command the caller knows is there (`workbench label` reads its text from here)."""
    spec = find(surface, name)
    if spec is None:
        raise KeyError(f"no command {name!r} is offered to {surface}")
    return spec


def offered(workbench: Workbench, surface: Surface) -> list[AnyCommand]:
    """The built-in commands of a surface, then the session's own (an extension's, the
    enforcer's) that no built-in one shadows."""
    found = builtin(surface)
    names = {spec.name for spec in found}
    for name, command in sorted(workbench.commands.items()):
        spec = extension_spec(command)
        if name not in names and spec.offered(surface):
            found.append(spec)
    return found


__all__ = [
    "COMMANDS",
    "SURFACES",
    "AnyCommand",
    "Args",
    "Argument",
    "ArgumentSource",
    "CommandSpec",
    "Surface",
    "builtin",
    "extension_spec",
    "find",
    "get",
    "offered",
]
