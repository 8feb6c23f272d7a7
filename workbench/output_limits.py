"""Output limits shared by every tool (and the enforcer's `skill_activate`): what the model sees
of one result is at most 2,000 lines or 50 KB."""

from __future__ import annotations

from dataclasses import dataclass

MAX_LINES = 2000
MAX_BYTES = 50 * 1024


def format_size(size: int) -> str:
    return f"{size} bytes" if size < 1024 else f"{size / 1024:.1f} KB"


@dataclass
class HeadSlice:
    """The first lines of `lines` that fit the limits; `cut_line` is set when a single first line
    is too long to show at all."""

    lines: list[str]
    truncated: bool
    cut_line: bool = False


def head(lines: list[str], max_lines: int = MAX_LINES, max_bytes: int = MAX_BYTES) -> HeadSlice:
    """Keep whole lines from the start until either limit is reached."""
    kept: list[str] = []
    size = 0
    for line in lines[:max_lines]:
        line_size = len(line.encode("utf-8")) + 1
        if size + line_size > max_bytes:
            return HeadSlice(kept, truncated=True, cut_line=not kept)
        kept.append(line)
        size += line_size
    return HeadSlice(kept, truncated=len(kept) < len(lines))


def tail(text: str, max_lines: int = MAX_LINES, max_bytes: int = MAX_BYTES) -> tuple[str, bool]:
    """The end of `text` within the limits, in whole lines (a last line longer than the byte limit
    keeps its end); and whether anything was dropped."""
    lines = text.split("\n")
    kept: list[str] = []
    size = 0
    for line in reversed(lines[-max_lines:]):
        line_size = len(line.encode("utf-8")) + 1
        if size + line_size > max_bytes:
            if not kept:
                end = line.encode("utf-8")[-max_bytes:].decode("utf-8", "ignore")
                return end, True
            break
        kept.append(line)
        size += line_size
    kept.reverse()
    return "\n".join(kept), len(kept) < len(lines)
