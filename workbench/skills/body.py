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

from workbench.skills.model import Reference

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
    target = target.split("#", 1)[0].split("?", 1)[0]
    if "%" in target:  # urllib.parse loads only for the rare escaped path
        from urllib.parse import unquote

        target = unquote(target)
    return target or None


def _bare_paths(line: str) -> list[str]:
    """Bare `./` and `../` paths in prose that name a file (`../atom-x/SKILL.md`). A bare folder
    such as `(default: ./cache)` is more often a place the skill writes to than a reference."""
    paths = (m.group().rstrip(_TRAILING_PUNCTUATION) for m in _BARE_PATH.finditer(line))
    return [path for path in paths if _FILE_NAME.search(path)]


def _line_end(body: str, at: int) -> int:
    end = body.find("\n", at)
    return len(body) if end < 0 else end


def _fence_lines(body: str, mark: str) -> list[tuple[int, str]]:
    """(line start, run of backticks or tildes) of each fence line made of `mark`'s character:
    up to three spaces, then three or more of it. `str.find` hops from mark to mark."""
    found: list[tuple[int, str]] = []
    char = mark[0]
    at = body.find(mark)
    while at >= 0:
        start = body.rfind("\n", 0, at) + 1
        end = at + 3
        while body.startswith(char, end):
            end += 1
        if at - start <= 3 and (at == start or body[start:at] == " " * (at - start)):
            found.append((start, body[at:end]))
        at = body.find(mark, end)
    return found


def _fenced(body: str) -> list[tuple[int, int]]:
    """The fenced code blocks, as (start, end) offsets from the opening line's start to the end
    of the closing line (or of the body, for a block never closed). A block closes at a fence
    line of its own character at least as long as the one that opened it."""
    lines = _fence_lines(body, "```")
    if "~" in body:
        lines = sorted(lines + _fence_lines(body, "~~~"))
    blocks: list[tuple[int, int]] = []
    fence, opened = "", 0
    for start, run in lines:
        if not fence:
            fence, opened = run, start
        elif run[0] == fence[0] and len(run) >= len(fence):
            blocks.append((opened, _line_end(body, start)))
            fence = ""
    if fence:
        blocks.append((opened, len(body)))
    return blocks


def _marked_lines(body: str, blocks: list[tuple[int, int]]) -> list[int]:
    """Where the lines outside `blocks` that hold a `[` or a `./` start, in order."""
    starts: set[int] = set()
    for mark in ("[", "./"):
        at, block = body.find(mark), 0
        while at >= 0:
            while block < len(blocks) and blocks[block][1] <= at:
                block += 1
            if block < len(blocks) and blocks[block][0] <= at:
                at = body.find(mark, blocks[block][1])  # an example in a code block: skip it
                continue
            starts.add(body.rfind("\n", 0, at) + 1)
            end = body.find("\n", at)
            at = body.find(mark, end) if end >= 0 else -1
    return sorted(starts)


def find_references(body: str, first_line: int) -> tuple[Reference, ...]:
    """Relative paths in `body`, whose first line is line `first_line` of the file. Only the
    lines outside fenced code that hold a `[` or a `./` are looked at."""
    # Most bodies hold neither: one-character scans rule them out far faster than `](` or `./`.
    if "]" not in body and ("/" not in body or "./" not in body):
        return ()
    blocks = _fenced(body) if "`" in body or "~" in body else []
    found: list[Reference] = []
    number, counted = first_line, 0
    for start in _marked_lines(body, blocks):
        number += body.count("\n", counted, start)
        counted = start
        found.extend(_line_references(body[start : _line_end(body, start)], number))
    return tuple(found)


def _line_references(line: str, number: int) -> list[Reference]:
    """The references on one line outside a fenced block."""
    if "](" not in line and "]:" not in line and "./" not in line:
        return []  # a `[` that opens no link (`- [ ] task`): every kind needs one of these
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
