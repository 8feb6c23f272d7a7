"""An MCP tool result as the tool result the model reads.

Text and embedded text resources are kept as text, structured content as JSON when no text says
it already, images, audio, binary resources and links as a short note. The whole is cut to the
output limits every tool keeps (`workbench.output_limits`) with a notice that says so; an error
result (`isError`) is a tool error. This runs on the MCP thread, so a huge result is cut there
and only the cut text reaches the app.
"""

from __future__ import annotations

import json
from typing import Any

from workbench.output_limits import MAX_BYTES, format_size, head
from workbench.tool import ToolResult


def _part(item: Any) -> str:
    """One content block as text."""
    kind = getattr(item, "type", "")
    if kind == "text":
        return str(item.text)
    if kind in ("image", "audio"):
        size = len(getattr(item, "data", "") or "") * 3 // 4
        return f"[{kind} {item.mime_type}, {format_size(size)}: not shown to the model]"
    if kind == "resource":
        resource = item.resource
        text = getattr(resource, "text", None)
        if text is not None:
            return f"[resource {resource.uri}]\n{text}"
        return f"[binary resource {resource.uri} ({resource.mime_type or 'unknown type'})]"
    if kind == "resource_link":
        return f"[resource link {item.uri}: {item.name}]"
    return f"[{kind or 'unknown'} content]"


def result_text(content: list[Any], structured: dict[str, Any] | None) -> str:
    """All of a result's content as one text (structured content when there is nothing else)."""
    parts = [_part(item) for item in content]
    if structured is not None and not any(getattr(i, "type", "") == "text" for i in content):
        parts.append(json.dumps(structured, indent=2, ensure_ascii=False))
    return "\n".join(parts) if parts else "(no output)"


def bounded(text: str) -> tuple[str, dict[str, Any]]:
    """`text` within the output limits, with a notice when it was cut; and details saying so.
    Only the start that can be shown is split into lines: splitting a few MB at once would hold
    the GIL the app's thread needs."""
    lines = text[: MAX_BYTES + 1].split("\n")  # enough: a character is at least a byte
    window = head(lines)
    if not window.truncated:
        return text, {}
    size, total = _utf8_size(text), text.count("\n") + 1
    kept = "\n".join(window.lines)
    if window.cut_line:
        kept = lines[0].encode("utf-8")[:MAX_BYTES].decode("utf-8", "ignore")
    notice = (
        f"\n\n[Output cut: showing {len(window.lines) or 1} of {total} lines, "
        f"{format_size(len(kept.encode('utf-8')))} of {format_size(size)}.]"
    )
    return kept + notice, {"truncated": True, "total_bytes": size}


def _utf8_size(text: str, piece: int = 1 << 16) -> int:
    """The UTF-8 size of `text`, encoded a piece at a time (for the same reason)."""
    if text.isascii():
        return len(text)
    return sum(len(text[at : at + piece].encode("utf-8")) for at in range(0, len(text), piece))


def to_tool_result(server: str, result: Any) -> ToolResult:
    """A `CallToolResult` as the model's tool result."""
    text, details = bounded(result_text(list(result.content), result.structured_content))
    return ToolResult(
        text, is_error=bool(result.is_error), details={"mcp_server": server, **details}
    )
