"""Which known skills a tool call loads: `read` on a skill's file, or `bash` printing one.

A path counts when it resolves to a SKILL.md of the graph: relative to the tool's working folder,
through `..` and symlinks, with the file name's case ignored (`SKILL.MD`). A skill file that is
not in the graph is not a load. Bash commands are split with `shlex` into simple commands (at `;`,
`&&`, `||`, `|`, `&`, newlines and parentheses); a command that prints files (cat, head, tail,
less, more, sed, awk, bat...) loads every skill file among its arguments, and an input redirection
(`< file`) loads its file whatever the command. Arguments are brace-expanded (`{a,b}`) and
globbed as bash would. `cd DIR` moves the folder later commands resolve against; `sh -c '...'`,
`$(...)`, `<(...)` and backquotes are looked into; here-document bodies are not.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from workbench.skills.graph import SkillGraph
from workbench.skills.model import Skill

PRINTERS = frozenset(
    {"cat", "head", "tail", "less", "more", "most", "sed", "awk", "gawk", "mawk", "bat", "batcat"}
    | {"nl", "tac", "view", "pg"}
)
"""Programs whose file arguments end up in the output the model reads."""

PREFIXES = frozenset(
    {"sudo", "env", "command", "builtin", "exec", "nice", "nohup", "time", "stdbuf"}
    | {"do", "then", "else", "elif", "if", "while", "until", "!", "{", "}"}
)
"""Words that run the command after them (or shell keywords that start a command)."""

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh"})
_OPERATOR_CHARS = frozenset(";&|()<>\n")
"""shlex gives every operator as a token of these characters only; a word holding any other
character (`'length($0) > 80'`, a quoted awk program) is an argument, whatever else it holds."""
_QUOTED_OPERATORS = re.compile(r"""(?<!\S)(['"])([;&|()<>]+)\1(?!\S)""")
"""A quoted argument of operator characters only (`-F '|'`): a NUL put inside its quotes keeps it a
word (a NUL cannot be in a real command line, so nothing else changes)."""
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SUBSTITUTION = re.compile(r"[$<>]\(([^()]*)\)|`([^`]*)`")
_BRACES = re.compile(r"\{([^{}]*,[^{}]*)\}")
MAX_EXPANSIONS = 64
"""More words than this from one argument's braces: the argument is taken as it is."""
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)(\w+)\1[^\n]*\n.*?(?:\n[ \t]*\2[ \t]*(?=\n|$)|$)", re.DOTALL)


def skill_at(graph: SkillGraph, raw: str, cwd: Path) -> Skill | None:
    """The skill whose file `raw` names, relative to `cwd`, or None."""
    path = Path(raw).expanduser()
    if not path.is_absolute():
        path = cwd / path
    found = graph.by_path(path)
    if found is None:
        real = Path(os.path.realpath(path))
        if real != path:
            found = graph.by_path(real)
    return found


def _tokens(command: str) -> list[str]:
    command = _QUOTED_OPERATORS.sub(lambda m: f"{m[1]}\0{m[2]}{m[1]}", command)
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()<>\n")
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    return list(lexer)


def _simple_commands(tokens: list[str]) -> Iterator[tuple[list[str], list[str]]]:
    """(words, input-redirection files) of each simple command."""
    words: list[str] = []
    inputs: list[str] = []
    tokens_iter = iter(tokens)
    for token in tokens_iter:
        if not set(token) <= _OPERATOR_CHARS:
            words.append(token)
        elif "<" in token or ">" in token:
            target = next(tokens_iter, "")
            if token == "<" and target:
                inputs.append(target)
        else:
            if words or inputs:
                yield words, inputs
            words, inputs = [], []
    if words or inputs:
        yield words, inputs


def _program(words: list[str]) -> tuple[str, list[str]]:
    """The program's base name and its arguments, past assignments and prefixes like `sudo`."""
    index = 0
    while index < len(words):
        word = words[index]
        if _ASSIGNMENT.match(word) or word in PREFIXES or (index and word.startswith("-")):
            index += 1
            continue
        return Path(word).name, words[index + 1 :]
    return "", []


def _braces(argument: str) -> list[str]:
    """`a{b,c}d` -> `abd`, `acd`, as bash's brace expansion (innermost braces first)."""
    pending, words = [argument], []
    while pending:
        word = pending.pop()
        found = _BRACES.search(word)
        if found is None:
            words.append(word)
            continue
        options = found.group(1).split(",")
        pending += [word[: found.start()] + o + word[found.end() :] for o in reversed(options)]
        if len(pending) + len(words) > MAX_EXPANSIONS:
            return [argument]
    return words


def _glob(argument: str, cwd: Path) -> list[str]:
    """A glob argument expanded against `cwd` (sorted); any other argument as it is."""
    if not any(ch in argument for ch in "*?["):
        return [argument]
    pattern = Path(argument).expanduser()
    base = Path(pattern.anchor) if pattern.is_absolute() else cwd
    relative = str(pattern.relative_to(base)) if pattern.is_absolute() else str(pattern)
    return sorted(str(p) for p in base.glob(relative)) or [argument]


def _expand(argument: str, cwd: Path) -> list[str]:
    """The words bash makes of one argument: braces, then globs."""
    return [path for word in _braces(argument) for path in _glob(word, cwd)]


def _files_read(command: str, cwd: Path, depth: int = 0) -> Iterator[tuple[str, Path]]:
    """(file, folder it resolves against) for every file the command prints or redirects in."""
    command = _HEREDOC.sub("", command)
    if depth < 3:
        for match in _SUBSTITUTION.finditer(command):
            yield from _files_read(match.group(1) or match.group(2) or "", cwd, depth + 1)
    try:
        tokens = _tokens(command)
    except ValueError:  # unbalanced quotes: the shell would refuse it too
        return
    for words, inputs in _simple_commands(tokens):
        for target in inputs:
            yield target, cwd
        program, arguments = _program(words)
        if program == "cd" and arguments:
            cwd = (cwd / Path(arguments[0]).expanduser()).resolve()
        elif program in SHELLS and "-c" in arguments and depth < 3:
            script_at = arguments.index("-c") + 1
            if script_at < len(arguments):
                yield from _files_read(arguments[script_at], cwd, depth + 1)
        elif program in PRINTERS and not (program == "sed" and _edits_in_place(arguments)):
            for argument in arguments:
                if not argument.startswith(("-", "+")):
                    yield from ((path, cwd) for path in _expand(argument, cwd))


def _edits_in_place(arguments: list[str]) -> bool:
    return any(a == "-i" or a.startswith(("-i", "--in-place")) for a in arguments)


def bash_loads(graph: SkillGraph, command: str, cwd: Path) -> list[Skill]:
    """The known skills a bash command prints, in order, each once."""
    found: dict[str, Skill] = {}
    for raw, folder in _files_read(command, cwd):
        if "skill" not in raw.lower() and not (folder / raw).is_symlink():
            continue  # cheap filter: a skill file's name is SKILL.md (or a symlink to one)
        skill = skill_at(graph, raw, folder)
        if skill is not None:
            found.setdefault(skill.name, skill)
    return list(found.values())


def loads(graph: SkillGraph, tool_name: str, args: dict[str, Any], cwd: Path) -> list[Skill]:
    """The known skills a `read` or `bash` call loads; empty for any other call."""
    if tool_name == "read":
        raw = args.get("path", args.get("file_path"))
        if isinstance(raw, str) and raw.strip():
            skill = skill_at(graph, raw.strip(), cwd)
            return [skill] if skill else []
    elif tool_name == "bash":
        command = args.get("command")
        if isinstance(command, str):
            return bash_loads(graph, command, cwd)
    return []
