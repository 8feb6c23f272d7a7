"""What a skill's Markdown body says that the linter checks.

Two facts: the relative paths it points at (Markdown links, link definitions, bare file paths in
prose that start with `./` or `../`, and inline-code paths to another skill such as
`../atom-x/SKILL.md`), and whether it states the two human-interaction rules. Text inside fenced
code blocks and inline code is an example, not a reference, so only inline-code paths that name a
`SKILL.md` count. Targets with a URL scheme, an absolute path, an anchor or a template placeholder
are not relative references.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from workbench.skills.model import Reference

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"(`+)(.+?)\1")
_LINK = re.compile(r"!?\[[^\]]*\]\(\s*(<[^>]*>|[^)\s]+)")
_LINK_DEFINITION = re.compile(r"^ {0,3}\[(?!\^)[^\]]+\]:\s*(<[^>]*>|\S+)")
_SKILL_PATH = re.compile(r"\.{1,2}/[^\s`]*SKILL\.md")
# A bare path starts a word (or follows an opening bracket, quote or emphasis mark) and ends
# before whitespace and trailing punctuation.
_BARE_PATH = re.compile(r"(?<![^\s(\[\"'*])\.{1,2}/\S*")
_TRAILING_PUNCTUATION = ".,;:!?)]'\"*"
_FILE_NAME = re.compile(r"/[^/]*[^/.]\.[A-Za-z0-9]+$")
_NOT_RELATIVE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:|[/#~${<]|.*(\{\{|\$\{|<|>)")

_ONE_QUESTION = re.compile(r"one\s+question\s+at\s+a\s+time")  # matched on lowercased text
_LETTERED_OPTIONS = re.compile(r"A\)\s.{0,400}?B\)\s", re.DOTALL)
_RECOMMENDED = ("recommended", "推荐")
_FREE_FORM = ("free-form", "free form", "freeform", "your own", "自定义")


def _relative_target(raw: str) -> str | None:
    """The file part of a link target, or None when it is not a relative path."""
    target = raw[1:-1].strip() if raw.startswith("<") else raw
    if not target or _NOT_RELATIVE.match(target):
        return None
    target = unquote(target.split("#", 1)[0].split("?", 1)[0])
    return target or None


def _bare_paths(line: str) -> list[str]:
    """Bare `./` and `../` paths in prose that name a file (`../atom-x/SKILL.md`). A bare folder
    such as `(default: ./cache)` is more often a place the skill writes to than a reference."""
    paths = (m.group().rstrip(_TRAILING_PUNCTUATION) for m in _BARE_PATH.finditer(line))
    return [path for path in paths if _FILE_NAME.search(path)]


# What makes a line worth a look: a link's `[`, a relative path's `./`, a fence's backticks or
# tildes. Every other line is plain prose and holds no reference.
_LINE_MARKS = ("[", "./", "```", "~~~")


def _marked_lines(body: str) -> list[int]:
    """Where the lines holding one of `_LINE_MARKS` start, in order. `str.find` hops from mark
    to mark at C speed, so Python never loops over the many lines of plain prose."""
    starts: set[int] = set()
    for mark in _LINE_MARKS:
        at = body.find(mark)
        while at >= 0:
            starts.add(body.rfind("\n", 0, at) + 1)
            end = body.find("\n", at)
            at = body.find(mark, end) if end >= 0 else -1
    return sorted(starts)


def find_references(body: str, first_line: int) -> tuple[Reference, ...]:
    """Relative paths in `body`, whose first line is line `first_line` of the file."""
    # Most bodies hold neither: one-character scans rule them out far faster than `](` or `./`.
    if "]" not in body and ("/" not in body or "./" not in body):
        return ()
    found: list[Reference] = []
    fence: str | None = None
    number, counted = first_line, 0
    for start in _marked_lines(body):
        number += body.count("\n", counted, start)
        counted = start
        end = body.find("\n", start)
        line = body[start:end] if end >= 0 else body[start:]
        opening = _FENCE.match(line) if ("`" in line or "~" in line) else None
        if fence is not None:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
            continue
        if opening:
            fence = opening.group(1)
            continue
        if "[" not in line and "./" not in line:
            continue
        found.extend(_line_references(line, number))
    return tuple(found)


def _line_references(line: str, number: int) -> list[Reference]:
    """The references on one line outside a fenced block."""
    found: list[Reference] = []
    if "`" in line:
        for code in _INLINE_CODE.finditer(line):
            found.extend(Reference(m.group(), number) for m in _SKILL_PATH.finditer(code[2]))
        line = _INLINE_CODE.sub("", line)
    raws: list[str] = []
    if "](" in line:
        raws += [m.group(1) for m in _LINK.finditer(line)]
        line = _LINK.sub("", line)
    definition = _LINK_DEFINITION.match(line) if "]:" in line else None
    if definition:
        raws.append(definition.group(1))
        line = line[definition.end() :]
    if "./" in line:
        raws += _bare_paths(line)
    for raw in raws:
        target = _relative_target(raw)
        if target is not None:
            found.append(Reference(target, number))
    return found


def interaction_rules(body: str) -> tuple[bool, bool]:
    """Whether the body states the two human-interaction rules: (1) ask one question at a time;
    (2) offer lettered options (`A) ... B) ...`), one marked recommended, plus a free-form
    choice. English or Chinese (一次只问一个问题, 推荐, 自定义) wording counts."""
    lowered = body.lower()
    one_question = "一次只问一个问题" in body or _ONE_QUESTION.search(lowered) is not None
    options = (
        _LETTERED_OPTIONS.search(body) is not None
        and any(word in lowered for word in _RECOMMENDED)
        and any(word in lowered for word in _FREE_FORM)
    )
    return one_question, options
