"""`edit(path, old_text, new_text)`: replace the one place where `old_text` occurs.

Exactly one match is required, so the model cannot change the wrong place by accident; anything
else leaves the file untouched. Matching ignores the difference between CRLF and LF, and only the
edited region is rewritten: the file's other line endings and its byte-order mark stay as they were.
"""

from __future__ import annotations

import bisect
import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.agent.tools.paths import resolve_path
from workbench.agent.tools.read import decode_text, read_bytes
from workbench.errors import WorkbenchError
from workbench.permission import NO, YES, PermissionRequest, always
from workbench.tool import Tool, ToolContext, ToolResult

BOM = "\ufeff"

DESCRIPTION = (
    "Replace text in a file. old_text must match exactly one place in the file (whitespace "
    "included); include enough surrounding lines to make it unique. The result shows a diff."
)

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "File path, relative to the working folder"},
        "old_text": {"type": "string", "description": "The exact text to replace"},
        "new_text": {"type": "string", "description": "The text to put in its place"},
    },
    "required": ["path", "old_text", "new_text"],
}


def _raw_offset(crlf_positions: list[int], normalized_offset: int) -> int:
    """Map an offset in the LF-normalised text back to the original text.

    The k-th CRLF (0-based) sits at normalised position `raw_position - k`; every CRLF before the
    offset adds one character in the original.
    """
    shifted = [pos - k for k, pos in enumerate(crlf_positions)]
    return normalized_offset + bisect.bisect_left(shifted, normalized_offset)


def _crlf_positions(text: str) -> list[int]:
    positions, start = [], text.find("\r\n")
    while start != -1:
        positions.append(start)
        start = text.find("\r\n", start + 2)
    return positions


def _occurrences(text: str, old: str) -> int:
    """Matches of `old` in `text`, overlapping ones included (`str.count` skips those, and an
    overlapping second match is just as ambiguous)."""
    count, start = 0, text.find(old)
    while start != -1:
        count += 1
        start = text.find(old, start + 1)
    return count


def unified_diff(before: str, after: str, name: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"a/{name}",
        tofile=f"b/{name}",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


@dataclass(frozen=True)
class PlannedEdit:
    """What an edit call would write: the file, its new bytes, its text before and after (line
    endings as LF, for the diff) and the first line it changes."""

    path: Path
    shown: str
    data: bytes
    before: str
    after: str
    first_line: int


def plan_edit(args: dict[str, Any], ctx: ToolContext) -> PlannedEdit:
    """The edit a call asks for, checked, without writing anything."""
    raw_path = str(args.get("path", ""))
    old = str(args.get("old_text", "")).replace("\r\n", "\n")
    new = str(args.get("new_text", "")).replace("\r\n", "\n")
    if not old:
        raise WorkbenchError("old_text is empty", "copy the exact text to replace from the file")
    resolve_path(ctx, raw_path, writing=True)  # refused before anything is read
    data, shown = read_bytes(ctx, raw_path)
    text = decode_text(data, shown)  # refuses binary files, drops the BOM
    bom = BOM if data.startswith(BOM.encode("utf-8")) else ""
    normalized = text.replace("\r\n", "\n")
    count = _occurrences(normalized, old)
    if count == 0:
        raise WorkbenchError(
            f"old_text was not found in {shown}; the file is unchanged",
            "read the file again and copy the text exactly, including whitespace",
        )
    if count > 1:
        raise WorkbenchError(
            f"old_text occurs {count} times in {shown}; the file is unchanged",
            "include more surrounding lines so that it matches exactly one place",
        )
    if old == new:
        raise WorkbenchError("old_text and new_text are identical; nothing to change")
    crlf = _crlf_positions(text)
    start = normalized.index(old)
    raw_start = _raw_offset(crlf, start)
    raw_end = _raw_offset(crlf, start + len(old))
    eol = "\r\n" if len(crlf) * 2 >= text.count("\n") and crlf else "\n"
    updated = text[:raw_start] + new.replace("\n", eol) + text[raw_end:]
    first_line = normalized.count("\n", 0, start) + 1
    return PlannedEdit(
        resolve_path(ctx, raw_path, writing=True),
        shown,
        (bom + updated).encode("utf-8"),
        normalized,
        updated.replace("\r\n", "\n"),
        first_line,
    )


async def execute(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    planned = plan_edit(args, ctx)
    try:
        planned.path.write_bytes(planned.data)
    except OSError as exc:
        raise WorkbenchError(f"cannot write {args.get('path')}: {exc.strerror}") from exc
    diff = unified_diff(planned.before, planned.after, planned.shown)
    return ToolResult(
        f"Replaced 1 occurrence in {planned.shown}.\n\n{diff}",
        details={"path": planned.shown, "diff": diff, "first_changed_line": planned.first_line},
    )


def describe(args: dict[str, Any], ctx: ToolContext) -> PermissionRequest:
    """The edit as its diff, for the user's approval."""
    planned = plan_edit(args, ctx)
    return file_change(ctx, "edit", planned.shown, planned.path, planned.before, planned.after)


def file_change(
    ctx: ToolContext, tool: str, shown: str, path: Path, before: str, after: str
) -> PermissionRequest:
    """A request to change file `path` (named `shown`): its diff, and its text before and after
    (an editor draws the whole file's diff from those)."""
    diff = unified_diff(before, after, shown)
    options = (YES, NO, always("edits"))
    title = f"{tool.capitalize()} {shown}"
    return PermissionRequest(
        "edit", tool, title, diff, options, ctx.tool_call_id, str(path), before, after
    )


def edit_tool() -> Tool:
    return Tool("edit", DESCRIPTION, PARAMETERS, execute, describe)
