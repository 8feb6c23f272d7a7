"""`workbench export` and the app's `/export`: a branch written as HTML or Markdown.

`export_text` renders; `write_export` writes atomically (a temporary file renamed into place),
so a reader never opens half a file. Both work on an open session (read-only is enough).
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
from workbench.sessions.export.transcript import build_transcript
from workbench.sessions.store.store import GitConversationStore
from workbench.sessions.workspaces.workspace import Workspaces

FORMATS = ("html", "md")


@dataclass(frozen=True)
class ExportResult:
    path: Path | None
    format: str
    branch: str
    entries: int
    bytes: int
    seconds: float

    def render_text(self) -> str:
        where = self.path if self.path else "stdout"
        return (
            f"exported {self.branch} ({self.entries} entries) as {self.format} to {where}: "
            f"{self.bytes:,} bytes in {self.seconds:.2f} s"
        )


def export_text(
    store: GitConversationStore, workspaces: Workspaces, branch: str | None, fmt: str
) -> tuple[str, str, int]:
    """(text, branch, entries) of `branch` (default: the current one) in `fmt`."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown export format {fmt!r}", "use html or md")
    transcript = build_transcript(store, workspaces, branch)
    render = render_html if fmt == "html" else render_markdown
    return render(transcript), transcript.branch, transcript.entries


def default_path(directory: Path, session_id: str, branch: str, fmt: str) -> Path:
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in branch)
    return directory / f"workbench-{session_id}-{safe}.{fmt}"


def write_export(
    store: GitConversationStore,
    workspaces: Workspaces,
    branch: str | None,
    fmt: str,
    path: Path,
) -> ExportResult:
    """Render and write atomically to `path`; the result says how big and how long."""
    started = time.perf_counter()
    text, name, entries = export_text(store, workspaces, branch, fmt)
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
    return ExportResult(path, fmt, name, entries, len(data), time.perf_counter() - started)
