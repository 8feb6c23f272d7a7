"""MCP tool names as model APIs take them: `[a-zA-Z0-9_-]`, at most 64 characters, unique."""

from __future__ import annotations

from workbench.mcp.names import tool_name


def test_names_are_cleaned_cut_and_numbered_when_taken() -> None:
    assert tool_name("git hub", "search.issues", set()) == "mcp__git_hub__search_issues"
    long = tool_name("server", "t" * 100, set())
    assert len(long) == 64 and long.startswith("mcp__server__ttt")
    taken = {"mcp__a__b_c"}
    assert tool_name("a", "b.c", taken) == "mcp__a__b_c_2"
    cut = tool_name("server", "t" * 100, {long})
    assert len(cut) == 64 and cut.endswith("_2")
