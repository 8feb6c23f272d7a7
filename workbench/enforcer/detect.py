"""Which known skills a tool call loads: `read` on a skill's file, or `bash` printing one.

A path counts when it resolves to a SKILL.md of the graph: relative to the tool's working folder,
through `..` and symlinks, with the file name's case ignored (`SKILL.MD`). A skill file that is
not in the graph is not a load. Bash commands are split with `shlex` into simple commands (at `;`,
`&&`, `||`, `|`, `&`, newlines and parentheses); a command that prints files (cat, head, tail,
less, more, sed, awk, bat...) loads every skill file among its arguments, and an input redirection
(`< file`) loads its file whatever the command. Arguments are brace-expanded (`{a,b}`) and
globbed as bash would. `cd DIR` moves the folder later commands resolve against; `sh -c '...'`,
`$(...)`, `<(...)` and backquotes are looked into; here-document bodies are not.

A load is *partial* when the model sees only part of the file: `head` and `tail`, `sed -n` or a
sed script that quits, an awk program other than "print every line", output piped into anything
but a pager or `cat`-like command (`| head -3`, `| grep x`), a redirected file read by such a
command (`wc -l < file`), and `read` with `offset` past the first line or a `limit` shorter than
the file. A partial load is checked like any other; a later full read of it is no repeat.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.skills.graph import SkillGraph
from workbench.skills.model import Skill

PRINTERS = frozenset(
    {"cat", "head", "tail", "less", "more", "most", "sed", "awk", "gawk", "mawk", "bat", "batcat"}
    | {"nl", "tac", "view", "pg"}
)
"""Programs whose file arguments end up in the output the model reads."""

WHOLE = frozenset(
    {"cat", "less", "more", "most", "bat", "batcat", "nl", "tac", "view", "pg", "tee"}
)
"""Programs that pass on every line they are given: at the end of a pipe, the model sees all."""
_AWK = frozenset({"awk", "gawk", "mawk"})
_AWK_WHOLE = frozenset({"1", "{print}", "{print$0}"})
"""awk programs (spaces removed) that print every line."""
_SED_QUITS = re.compile(r"[qQ]\s*\d*\s*$")

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


@dataclass(frozen=True)
class Load:
    """A skill a tool call loads, and whether the model sees only part of its file."""

    skill: Skill
    partial: bool = False


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


def _simple_commands(tokens: list[str]) -> Iterator[tuple[list[str], list[str], bool]]:
    """(words, input-redirection files, whether its output is piped on) of each simple command."""
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
                yield words, inputs, "|" in token and "||" not in token
            words, inputs = [], []
    if words or inputs:
        yield words, inputs, False


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


def _awk_program(arguments: list[str]) -> str | None:
    """The program text of an awk command line (None when it comes from a file)."""
    values = iter(arguments)
    for argument in values:
        if argument in ("-F", "-v"):
            next(values, None)  # the option's value
        elif argument.startswith("-f"):
            return None
        elif not argument.startswith("-"):
            return argument
    return None


def _shows_part(program: str, arguments: list[str]) -> bool:
    """Whether a printing program shows only part of its files."""
    options = [a for a in arguments if a.startswith("-")]
    if program in ("head", "tail"):
        return True
    if program == "sed":
        script = next((a for a in arguments if not a.startswith(("-", "+"))), "")
        quiet = any(o in ("--quiet", "--silent") or (o[1:2] != "-" and "n" in o) for o in options)
        return quiet or bool(_SED_QUITS.search(script))
    if program in _AWK:
        awk_program = _awk_program(arguments)
        return awk_program is None or "".join(awk_program.split()) not in _AWK_WHOLE
    if program in ("bat", "batcat"):
        return any(o.startswith(("-r", "--line-range")) for o in options)
    return False


def _cut_downstream(commands: list[tuple[str, list[str], bool]], index: int) -> bool:
    """Whether the pipe after command `index` leads into a command that does not pass on every
    line (a `head`, a `grep`, a `wc`...)."""
    for program, _arguments, piped in commands[index + 1 :]:
        if program not in WHOLE:
            return True
        if not piped:
            return False
    return False


def _files_read(
    command: str, cwd: Path, depth: int = 0, cut: bool = False
) -> Iterator[tuple[str, Path, bool]]:
    """(file, folder it resolves against, whether only part of it is shown) for every file the
    command prints or redirects in; `cut`: the whole command's output is cut down."""
    command = _HEREDOC.sub("", command)
    try:
        simple = list(_simple_commands(_tokens(command)))
    except ValueError:  # unbalanced quotes: the shell would refuse it too
        simple = []
    commands = [(*_program(words), piped) for words, _inputs, piped in simple]
    if depth < 3:  # a substitution's output is cut when any pipe of the command cuts
        cuts = cut or any(c[2] and _cut_downstream(commands, i) for i, c in enumerate(commands))
        for match in _SUBSTITUTION.finditer(command):
            inner = match.group(1) or match.group(2) or ""
            yield from _files_read(inner, cwd, depth + 1, cuts)
    for index, ((_words, inputs, piped), (program, arguments, _)) in enumerate(
        zip(simple, commands, strict=True)
    ):
        part = cut or (piped and _cut_downstream(commands, index))
        for target in inputs:
            yield target, cwd, part or program not in WHOLE
        if program == "cd" and arguments:
            cwd = (cwd / Path(arguments[0]).expanduser()).resolve()
        elif program in SHELLS and "-c" in arguments and depth < 3:
            script_at = arguments.index("-c") + 1
            if script_at < len(arguments):
                yield from _files_read(arguments[script_at], cwd, depth + 1, part)
        elif program in PRINTERS and not (program == "sed" and _edits_in_place(arguments)):
            part = part or _shows_part(program, arguments)
            for argument in arguments:
                if not argument.startswith(("-", "+")):
                    yield from ((path, cwd, part) for path in _expand(argument, cwd))


def _edits_in_place(arguments: list[str]) -> bool:
    return any(a == "-i" or a.startswith(("-i", "--in-place")) for a in arguments)


def bash_loads(graph: SkillGraph, command: str, cwd: Path) -> list[Load]:
    """The known skills a bash command prints, in order, each once (partial only when every
    time it is printed, only part of it is shown)."""
    found: dict[str, Load] = {}
    for raw, folder, partial in _files_read(command, cwd):
        if "skill" not in raw.lower() and not (folder / raw).is_symlink():
            continue  # cheap filter: a skill file's name is SKILL.md (or a symlink to one)
        skill = skill_at(graph, raw, folder)
        if skill is not None:
            seen = found.get(skill.name)
            found[skill.name] = Load(skill, partial and (seen is None or seen.partial))
    return list(found.values())


def read_is_partial(args: dict[str, Any], details: dict[str, Any] | None = None) -> bool:
    """Whether a `read` shows only part of its file: an `offset` past the first line, a `limit`
    (shorter than the file, when the result's `details` say how long it is), or a result cut
    short by the tool's own size limits."""
    details = details or {}
    offset, limit, total = args.get("offset"), args.get("limit"), details.get("total_lines")
    if details.get("truncated") or (isinstance(offset, int) and offset > 1):
        return True
    return isinstance(limit, int) and not (isinstance(total, int) and limit >= total)


def loads(graph: SkillGraph, tool_name: str, args: dict[str, Any], cwd: Path) -> list[Load]:
    """The known skills a `read` or `bash` call loads; empty for any other call."""
    if tool_name == "read":
        raw = args.get("path", args.get("file_path"))
        if isinstance(raw, str) and raw.strip():
            skill = skill_at(graph, raw.strip(), cwd)
            return [Load(skill, read_is_partial(args))] if skill else []
    elif tool_name == "bash":
        command = args.get("command")
        if isinstance(command, str):
            return bash_loads(graph, command, cwd)
    return []
