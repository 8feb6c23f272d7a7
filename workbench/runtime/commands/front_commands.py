"""The front ends' own commands: help and quit. Each front end acts on them itself (the app
shows its keys too; an editor lists the commands it is offered)."""

from __future__ import annotations

from workbench.runtime.commands.registry import AnyCommand, CommandSpec

COMMANDS: tuple[AnyCommand, ...] = (
    CommandSpec("help", "keys and commands", frozenset({"app"})),
    CommandSpec("help", "the commands", frozenset({"acp"})),
    CommandSpec("quit", "leave workbench", frozenset({"app"})),
)
