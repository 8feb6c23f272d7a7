"""The slash commands of the app: one table for the editor's completion, the command palette and
`/help`, so that the three can never disagree.

A command's arguments are written as in the usage line: `<name>` is required, `[name]` optional.
`complete` names where candidates for its argument come from (skills, branches, sessions); the app
supplies them, as they live in the open session.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

ArgumentSource = Literal["skills", "branches", "sessions"]
Candidate = tuple[str, str]
"""A value for a command's argument and what it is (a skill's description, ...)."""


@dataclass(frozen=True)
class SlashCommand:
    name: str
    args: str
    help: str
    complete: ArgumentSource | None = None
    picks: bool = False
    """Without an argument, the command offers its own picker (the palette asks nothing)."""

    @property
    def usage(self) -> str:
        return f"/{self.name} {self.args}".strip()

    @property
    def needs_argument(self) -> bool:
        return self.args.startswith("<")


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("tree", "", "show the conversation tree (branches, labels, where you are)"),
    SlashCommand("fork", "[name]", "start a branch of the conversation here"),
    SlashCommand("status", "[branch]", "what a branch did since its fork: entries, files"),
    SlashCommand("diff", "[path]", "the branch's file changes since its fork, as a diff"),
    SlashCommand("commit", "[message]", "commit the branch's files (no message: the model drafts)"),
    SlashCommand("merge", "<branch>", "merge a branch into its parent", "branches"),
    SlashCommand("label", "<text>", "label the current entry"),
    SlashCommand("compact", "[focus]", "summarise older history now"),
    SlashCommand("model", "[name]", "show or switch the model"),
    SlashCommand("skills", "", "go to the skill graph"),
    SlashCommand("skill-graph-status", "", "loaded skills, active compound, violations"),
    SlashCommand("activate", "<skill>", "activate a skill for this branch", "skills"),
    SlashCommand("deactivate", "<skill>", "deactivate a skill", "skills"),
    SlashCommand("push", "[remote] [--redact]", "send this session to a git remote"),
    SlashCommand("export", "[format]", "write this branch as one file: html (default) or md"),
    SlashCommand("new", "", "start a new session"),
    SlashCommand(
        "resume", "[session]", "open another session of this project", "sessions", picks=True
    ),
    SlashCommand("help", "", "keys and commands"),
    SlashCommand("quit", "", "leave workbench"),
)
BY_NAME: dict[str, SlashCommand] = {c.name: c for c in COMMANDS}


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
            for c in COMMANDS
            if c.name.startswith(name)
        ]
        found += [
            Completion(f"/{n} ", f"/{n}", f"{h} (extension)")
            for n, h in sorted(extra.items())
            if n.startswith(name) and n not in BY_NAME
        ]
        found += [
            Completion(
                f"/skill:{s.name} ", f"/skill:{s.name} {s.argument_hint}".strip(), s.description
            )
            for s in skills
            if f"skill:{s.name}".startswith(name)
        ]
        return found
    command = BY_NAME.get(name)
    if command is None or command.complete is None or " " in partial:
        return []
    return [
        Completion(f"/{name} {value}", value, about)
        for value, about in candidates(command.complete)
        if value.startswith(partial)
    ]
