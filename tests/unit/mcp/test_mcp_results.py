"""MCP results as tool results: every kind of content as text, cut to the output limits."""

from __future__ import annotations

from mcp.types import (
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    TextContent,
    TextResourceContents,
)

from workbench.mcp.results import to_tool_result


def test_text_resources_images_and_structured_content() -> None:
    result = CallToolResult(
        content=[
            TextContent(type="text", text="hello"),
            ImageContent(type="image", data="AAAA", mime_type="image/png"),
            EmbeddedResource(
                type="resource",
                resource=TextResourceContents(uri="file:///notes.md", text="# notes"),
            ),
        ],
        is_error=True,
    )
    converted = to_tool_result("srv", result)
    assert converted.is_error
    assert converted.text.splitlines() == [
        "hello",
        "[image image/png, 3 bytes: not shown to the model]",
        "[resource file:///notes.md]",
        "# notes",
    ]
    structured = CallToolResult(content=[], structured_content={"answer": 42})
    assert '"answer": 42' in to_tool_result("srv", structured).text


def test_a_long_result_is_cut_with_a_notice() -> None:
    text = "\n".join(f"row {n}" for n in range(5000))
    converted = to_tool_result("srv", CallToolResult(content=[TextContent(type="text", text=text)]))
    assert converted.text.startswith("row 0\n")
    assert "[Output cut: showing 2000 of 5000 lines" in converted.text
    assert converted.details["truncated"] is True


def test_a_megabytes_long_result_keeps_its_start_and_counts_all_of_it() -> None:
    text = "é" * 60_000 + "\n" + "\n".join(f"row {n}" for n in range(300_000))
    converted = to_tool_result("srv", CallToolResult(content=[TextContent(type="text", text=text)]))
    assert converted.text.startswith("é" * 25_000)
    assert "[Output cut: showing 1 of 300001 lines, 50.0 KB of" in converted.text
    assert converted.details["total_bytes"] == len(text.encode("utf-8"))
    short = "\n".join(f"row {n}" for n in range(1999))
    kept = to_tool_result("srv", CallToolResult(content=[TextContent(type="text", text=short)]))
    assert kept.text == short and "truncated" not in kept.details
