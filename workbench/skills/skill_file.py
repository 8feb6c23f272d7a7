"""The text of a SKILL.md: its bytes, decoded, and split into frontmatter and body.

Below both `model` and `parse`: the parser reads a file through these steps, and a `Skill`
unpickled from the parse cache reads its body again with `read_body`, so this module may import
neither. A problem is handed to a `Report` callback; the parser turns it into a `Diagnostic`.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path

Report = Callable[[str, int, str, str | None], None]
"""Receives one problem: (rule id, line, message, hint)."""

_FRONTMATTER_HINT = "start SKILL.md with a line `---`, the fields (name, description), then `---`"


def read_bytes(path: Path) -> bytes:
    """The file's bytes; a FIFO or device raises instead of blocking or reading forever.
    Plain `os.read` calls: no buffered file object per file, which counts at 10,000 files."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        first = os.read(fd, info.st_size + 1)  # the whole file in one call, as a rule
        if len(first) <= info.st_size:
            return first
        chunks = [first]  # it grew while being read
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def decode(data: bytes, report: Report) -> str:
    """The text, with a byte-order mark dropped and CRLF or CR line ends read as LF."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        report(
            "encoding-invalid",
            line,
            f"byte {data[exc.start : exc.start + 1]!r} is not UTF-8; it reads as U+FFFD",
            "save the file as UTF-8",
        )
        text = data.decode("utf-8", "replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def split(text: str, report: Report) -> tuple[str, str, int] | None:
    """(frontmatter text, body, body's first line), or None when there is no frontmatter."""
    if not text or text.isspace():  # as `not text.strip()`, without copying the text
        report("frontmatter-missing", 1, "SKILL.md is empty", _FRONTMATTER_HINT)
        return None
    first_end = text.find("\n")
    first = text if first_end < 0 else text[:first_end]
    if first.rstrip() != "---":
        report(
            "frontmatter-missing", 1, "SKILL.md does not start with a `---` line", _FRONTMATTER_HINT
        )
        return None
    closing = _closing_line(text, first_end) if first_end >= 0 else None
    if closing is None:
        report(
            "frontmatter-unclosed",
            1,
            "the frontmatter opened on line 1 is never closed",
            "add a line `---` after the last field",
        )
        return None
    yaml_text = text[first_end + 1 : closing[0]]
    body = text[closing[1] + 1 :]
    return yaml_text, body, yaml_text.count("\n") + 3


def _closing_line(text: str, after: int) -> tuple[int, int] | None:
    """(start, end) of the first line after offset `after` (a line feed) that is `---`, perhaps
    followed by spaces or tabs. `str.find` hops to each line that starts with `---`: a regex
    anchored at every line start would look at every character of the frontmatter."""
    at = text.find("\n---", after)
    while at >= 0:
        start = at + 1
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        if not text[start + 3 : end].strip(" \t"):
            return start, end
        at = text.find("\n---", end)
    return None


def read_body(path: Path) -> str:
    """The Markdown body of SKILL.md as the parser gives it; empty if it cannot be read."""
    try:
        data = read_bytes(path)
    except OSError:
        return ""
    text = decode(data, _ignore)
    parts = split(text, _ignore)
    return text if parts is None else parts[1]


def _ignore(_rule: str, _line: int, _message: str, _hint: str | None) -> None:
    """`read_body` reports nothing: the parse that made the skill reported it already."""
