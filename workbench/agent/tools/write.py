"""`write(path, content)`: create or overwrite a file, creating its parent folders."""

from __future__ import annotations

from typing import Any

from workbench.agent.tools.edit import file_change
from workbench.agent.tools.paths import resolve_path
from workbench.errors import WorkbenchError
from workbench.permission import PermissionRequest
from workbench.tool import Tool, ToolContext, ToolResult

DESCRIPTION = (
    "Create or overwrite a file with the given content; missing parent folders are created. "
    "Prefer edit for changing part of an existing file."
)

SHOWN_LIMIT = 1_000_000
"""A file up to this size is read to show what a write replaces."""

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "File path, relative to the working folder"},
        "content": {"type": "string", "description": "The complete new content of the file"},
    },
    "required": ["path", "content"],
}


async def execute(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    raw_path = str(args.get("path", ""))
    path = resolve_path(ctx, raw_path, writing=True)
    data = str(args.get("content", "")).encode("utf-8")
    if path.is_dir():
        raise WorkbenchError(f"{raw_path} is a folder; write needs a file path")
    existed = path.exists()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    except OSError as exc:
        raise WorkbenchError(f"cannot write {raw_path}: {exc.strerror}") from exc
    verb = "Overwrote" if existed else "Created"
    return ToolResult(
        f"{verb} {raw_path} ({len(data)} bytes written)",
        details={"path": raw_path, "bytes": len(data), "created": not existed},
    )


def describe(args: dict[str, Any], ctx: ToolContext) -> PermissionRequest:
    """The write as the diff from what the file holds now (nothing, for a new file; a binary
    or huge file counts as nothing shown), for the user's approval."""
    raw_path = str(args.get("path", ""))
    path = resolve_path(ctx, raw_path)
    before = ""
    try:
        if path.is_file() and path.stat().st_size <= SHOWN_LIMIT:
            before = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        before = ""
    return file_change(ctx, "write", raw_path, path, before, str(args.get("content", "")))


def write_tool() -> Tool:
    return Tool("write", DESCRIPTION, PARAMETERS, execute, describe)
