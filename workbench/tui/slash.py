"""The slash commands of the app, as the command registry (`workbench.runtime.commands`) offers
them: one table for the editor's completion, the command palette and `/help`, so that the three
can never disagree, nor differ from the CLI's or an editor's words for the same command.

A command's arguments are written as in the usage line: `<name>` is required, `[name]` optional.
`complete` names where candidates for its argument come from (skills, branches, sessions); the app
supplies them, as they live in the open session.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from workbench.runtime.commands import AnyCommand, ArgumentSource, builtin, find

Candidate = tuple[str, str]
"""A value for a command's argument and what it is (a skill's description, ...)."""


def commands() -> list[AnyCommand]:
    """The app's commands, read from the registry each time (an entry added later shows)."""
    return builtin("app")


def command(name: str) -> AnyCommand | None:
    return find("app", name)


def __getattr__(name: str) -> Any:
    """`COMMANDS` and `BY_NAME`: the same table as a tuple and by name."""
    if name == "COMMANDS":
        return tuple(commands())
    if name == "BY_NAME":
        return {c.name: c for c in commands()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def split(text: str) -> tuple[str, str] | None:
    """`/fork try-b` -> ("fork", "try-b"); None when the text is not a slash command."""
    if not text.startswith("/") or text.startswith("//"):
        return None
    name, _, args = text[1:].partition(" ")
    return (name, args.strip()) if name else None


@dataclass(frozen=True)
class SkillCommand:
    """`/skill:NAME [request]` for one skill the user may invoke: its own words in completion."""

    name: str
    description: str
    argument_hint: str = ""


@dataclass(frozen=True)
class Completion:
    """What the editor may complete `text` to, and how to show the choice."""

    text: str
    label: str
    help: str


def completions(
    text: str,
    extra: dict[str, str],
    candidates: Callable[[ArgumentSource], list[Candidate]],
    skills: Sequence[SkillCommand] = (),
) -> list[Completion]:
    """Completions for editor text that is a slash command being typed (one line).

    `extra` adds the session's own commands (extensions) as name -> help; `candidates` lists
    the values of an argument source, each with its own description; `skills` are the
    `/skill:NAME` commands, each completed with its own description and argument hint.
    """
    if "\n" in text or not text.startswith("/"):
        return []
    name, space, partial = text[1:].partition(" ")
    if not space:
        found = [
            Completion(f"/{c.name}" + (" " if c.args else ""), c.usage, c.help)
            for c in commands()
            if c.name.startswith(name)
        ]
        found += [
            Completion(f"/{n} ", f"/{n}", f"{h} (extension)")
            for n, h in sorted(extra.items())
            if n.startswith(name) and command(n) is None
        ]
        found += [
            Completion(
                f"/skill:{s.name} ", f"/skill:{s.name} {s.argument_hint}".strip(), s.description
            )
            for s in skills
            if f"skill:{s.name}".startswith(name)
        ]
        return found
    spec = command(name)
    if spec is None or spec.complete is None or " " in partial:
        return []
    return [
        Completion(f"/{name} {value}", value, about)
        for value, about in candidates(spec.complete)
        if value.startswith(partial)
    ]
