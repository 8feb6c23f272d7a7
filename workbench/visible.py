"""Control characters shown, never obeyed: text from a session, a remote or a model on a terminal.

A terminal obeys the control characters in what it is given: `ESC ]52` writes the user's
clipboard, `ESC ]0` the window title, `ESC [2J` clears the screen, a carriage return writes over
the line. Text that others wrote (a pulled session's name, a model's reply, a tool's output) is
therefore shown with each control character as its picture (`␛`, `␇`, `␍`; a C1 character as
`␛` and its 7-bit form, e.g. `␛[` for CSI), newlines and tabs kept. `visible` is the one place
that decides it: the headless commands write through `VisibleStream` when their output is a
terminal (what goes to a pipe or a file stays as it was: scripts read it), and the app filters
every line it draws through it.
"""

from __future__ import annotations

import re
import sys
from typing import Any, TextIO

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""C0 but newline and tab, DEL, C1."""


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    return "\u241b" + chr(code - 0x40)


def visible(text: str) -> str:
    """`text` with every control character but newline and tab shown as its picture."""
    return CONTROL.sub(_picture, text) if CONTROL.search(text) else text


class VisibleStream:
    """A text stream that writes what it is given through `visible`."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(visible(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def guard_terminal_output() -> None:
    """Route stdout and stderr through `visible` where they are terminals."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is not None and not isinstance(stream, VisibleStream) and stream.isatty():
            setattr(sys, name, VisibleStream(stream))
