"""`workbench export` and the app's `/export`: a branch written as HTML or Markdown.

`export_text` renders; `write_export` writes atomically (a temporary file renamed into place),
so a reader never opens half a file. Both work on an open session (read-only is enough). Both
check for credentials first, as a push does (`credentials.py`), and say which untracked files
the page shows; an earlier export is never one of them (`workspaces/export_mark.py`).
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from workbench.errors import UsageError
from workbench.sessions.export.html import render_html
from workbench.sessions.export.markdown import render_markdown
from workbench.sessions.export.transcript import Transcript, build_transcript
from workbench.sessions.store.store import GitConversationStore
from workbench.sessions.workspaces.workspace import Workspaces
from workbench.text import count_of

FORMATS = ("html", "md")


@dataclass(frozen=True)
class ExportResult:
    path: Path | None
    format: str
    branch: str
    entries: int
    bytes: int
    seconds: float
    untracked: list[str]
    """The untracked files the page shows (in its diff)."""
    redacted: int = 0
    """Credentials replaced (--redact)."""

    def render_text(self) -> str:
        where = self.path if self.path else "stdout"
        return (
            f"exported {self.branch} ({count_of(self.entries, 'entry', 'entries')}) "
            f"as {self.format} to {where}: "
            f"{self.bytes:,} bytes in {self.seconds:.2f} s"
        ) + "".join(f"\n{line}" for line in notes(self.untracked, self.redacted))


def notes(untracked: list[str], redacted: int) -> list[str]:
    """What an export says beyond where it went: untracked files shown, credentials replaced."""
    lines = []
    if untracked:
        lines.append(f"untracked files included: {', '.join(untracked)}")
    if redacted:
        lines.append(f"{redacted} credentials replaced (the session is unchanged)")
    return lines


def export_text(
    store: GitConversationStore,
    workspaces: Workspaces,
    branch: str | None,
    fmt: str,
    redact: bool = False,
) -> tuple[str, Transcript]:
    """`branch` (default: the current one) rendered in `fmt`, and what was rendered."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown export format {fmt!r}", "use html or md")
    transcript = build_transcript(store, workspaces, branch, redact)
    render = render_html if fmt == "html" else render_markdown
    return render(transcript), transcript


def default_path(directory: Path, session_id: str, branch: str, fmt: str) -> Path:
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in branch)
    return directory / f"workbench-{session_id}-{safe}.{fmt}"


def write_export(
    store: GitConversationStore,
    workspaces: Workspaces,
    branch: str | None,
    fmt: str,
    path: Path,
    redact: bool = False,
) -> ExportResult:
    """Render and write atomically to `path`; the result says how big and how long."""
    started = time.perf_counter()
    text, transcript = export_text(store, workspaces, branch, fmt, redact)
    data = text.encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        Path(temporary).chmod(0o644)
        Path(temporary).replace(path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    seconds = time.perf_counter() - started
    t = transcript
    return ExportResult(path, fmt, t.branch, t.entries, len(data), seconds, t.untracked, t.redacted)
