"""How an export is told from other files: a mark both formats carry.

An export written into a project folder is an untracked file there, and an untracked file is
part of a branch's diff: without the mark, each export would embed the one before it.
"""

from __future__ import annotations

from pathlib import Path

MARK = "workbench-export"
HTML_MARK = f'<meta name="generator" content="{MARK}">'
"""In the HTML page's head."""
MARKDOWN_MARK = f"<!-- {MARK} -->"
"""The Markdown file's last line (a comment: renderers show nothing)."""
PROBE_BYTES = 4096
"""How much of each end of a file is read to find the mark."""


def is_export(path: Path) -> bool:
    """True when `path` is a page an export wrote (the mark near its start or its end)."""
    try:
        with path.open("rb") as file:
            head = file.read(PROBE_BYTES)
            file.seek(0, 2)
            file.seek(max(0, file.tell() - PROBE_BYTES))
            tail = file.read()
    except OSError:
        return False
    return HTML_MARK.encode() in head or MARKDOWN_MARK.encode() in tail
