"""`read(path, offset?, limit?, line_numbers?)`: a text file's contents, a window at a time.

Long files are cut at 2,000 lines or 50 KB and the result says which `offset` continues. Binary
files are refused: their bytes would only waste the model's context.
"""

from __future__ import annotations

import shlex
from typing import Any

from workbench.agent.tools.paths import resolve_path
from workbench.errors import WorkbenchError
from workbench.output_limits import MAX_BYTES, MAX_LINES, format_size, head
from workbench.text import count_of
from workbench.tool import Tool, ToolContext, ToolResult

BINARY_SNIFF_BYTES = 8192

DESCRIPTION = (
    "Read a text file. Output is limited to "
    f"{MAX_LINES} lines or {MAX_BYTES // 1024} KB; use offset and limit to read long files in "
    "parts (the result says how to continue). Binary files are refused."
)

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "File path, relative to the working folder"},
        "offset": {"type": "integer", "description": "First line to show (1-based)"},
        "limit": {"type": "integer", "description": "Maximum number of lines to show"},
        "line_numbers": {"type": "boolean", "description": "Prefix each line with its number"},
    },
    "required": ["path"],
}


def decode_text(data: bytes, shown_path: str) -> str:
    """UTF-8 text without a byte-order mark; binary or non-UTF-8 data is a clear error."""
    if b"\0" in data[:BINARY_SNIFF_BYTES]:
        raise WorkbenchError(
            f"{shown_path} is a binary file ({format_size(len(data))}); read shows text only",
            "inspect it with bash instead (for example `file` or `xxd | head`)",
        )
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise WorkbenchError(
            f"{shown_path} is not UTF-8 text (invalid byte at position {exc.start})",
            "inspect it with bash instead (for example `file` or `iconv`)",
        ) from exc


def read_bytes(ctx: ToolContext, raw_path: str) -> tuple[bytes, str]:
    """The file's bytes and the path as the model gave it; missing files and folders are errors."""
    path = resolve_path(ctx, raw_path)
    if path.is_dir():
        raise WorkbenchError(f"{raw_path} is a folder, not a file", "list it with bash `ls`")
    try:
        return path.read_bytes(), raw_path
    except FileNotFoundError as exc:
        raise WorkbenchError(
            f"{raw_path} does not exist (looked in {path.parent})",
            "check the path; it is relative to the working folder",
        ) from exc
    except OSError as exc:
        raise WorkbenchError(f"cannot read {raw_path}: {exc.strerror}") from exc


def _positive(args: dict[str, Any], key: str) -> int | None:
    value = args.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise WorkbenchError(f"{key} must be a whole number of at least 1, not {value!r}")
    return value


async def execute(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    data, shown = read_bytes(ctx, str(args.get("path", "")))
    offset = _positive(args, "offset") or 1
    limit = _positive(args, "limit")
    lines = decode_text(data, shown).split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final newline does not start another line
    total = len(lines)
    if total == 0:
        return ToolResult(f"[{shown} is empty]", details={"path": shown, "total_lines": 0})
    if offset > total:
        raise WorkbenchError(
            f"offset {offset} is beyond the end of {shown} ({count_of(total, 'line')})",
            f"use an offset between 1 and {total}",
        )
    wanted = lines[offset - 1 : offset - 1 + limit if limit else None]
    window = head(wanted)
    if window.cut_line:
        return ToolResult(
            f"[Line {offset} of {shown} is longer than {MAX_BYTES // 1024} KB and cannot be "
            f"shown. Use bash: sed -n '{offset}p' {shlex.quote(shown)} | cut -c1-{MAX_BYTES}]",
            details={"path": shown, "total_lines": total, "truncated": True},
        )
    last = offset + len(window.lines) - 1
    body = window.lines
    if args.get("line_numbers"):
        width = len(str(last))
        body = [f"{n:>{width}}\t{line}" for n, line in enumerate(window.lines, start=offset)]
    text = "\n".join(body)
    if window.truncated:
        text += (
            f"\n\n[Showing lines {offset}-{last} of {total}. Use offset={last + 1} to continue.]"
        )
    elif last < total:
        text += f"\n\n[{total - last} more lines in {shown}. Use offset={last + 1} to continue.]"
    details = {"path": shown, "total_lines": total, "truncated": window.truncated}
    return ToolResult(text, details=details)


def read_tool() -> Tool:
    return Tool(
        name="read",
        description=DESCRIPTION,
        parameters=PARAMETERS,
        execute=execute,
        changes_files=False,
    )
