"""Small words for every layer: counts with their noun, and one line of a longer text."""

from __future__ import annotations

import re

SUMMARY_WIDTH = 72
CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def count_of(number: int, noun: str, plural: str | None = None) -> str:
    """`1 atom`, `2 atoms`; `plural` where adding an s is wrong (`entries`)."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def short_count(number: int) -> str:
    """`950`, `12.3k`, `1.2M`: a count that fits a footer."""
    if number >= 1_000_000:
        return f"{number / 1_000_000:.1f}M"
    return f"{number / 1000:.1f}k" if number >= 1000 else str(number)


def one_line(text: str, width: int = SUMMARY_WIDTH) -> str:
    """The first non-empty line of `text`, control characters blanked, cut to `width`."""
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    line = CONTROL.sub(" ", line)
    return line if len(line) <= width else line[: width - 1] + "…"
