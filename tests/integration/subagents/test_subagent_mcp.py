"""A sub-agent gets its parent's MCP servers (its own connections to them) and calls their
tools; an agent file's `mcp: none` gives its child none. The child is a real `workbench`
process on the local SSE model server; the server is a real SDK server."""

from __future__ import annotations

from pathlib import Path

from support.mcp_config import allow_start, stdio_entry
from support.openai_server import OpenAIServer, Reply
from support.subagent_calls import call, user_agents, write_agent
from support.workbench_process import write_user_settings


def serve(server: OpenAIServer) -> None:
    write_user_settings(
        {
            "models": {"openai/helper": {"api_base": server.url, "api_key": "none"}},
            "mcp": {"timeout": 120},
        }
    )


async def test_a_subagent_calls_its_parents_mcp_tool(
    project: Path, server: OpenAIServer, warm: Path, tmp_path: Path
) -> None:
    allow_start()
    serve(server)
    marker = tmp_path / "shared.started"
    write_agent(user_agents(), "helper", model="openai/helper")
    server.add(
        Reply(
            text="using the parent's server",
            tool_calls=[{"name": "mcp__ed__echo", "arguments": {"text": "child"}, "id": "c1"}],
        ),
        Reply(text="the server said echo: child"),
    )

    done = await call(
        project,
        {"agent": "helper", "task": "ask the server"},
        mcp_servers={"ed": stdio_entry(marker)},
    )

    assert not done.result.is_error, done.result.text
    assert marker.exists()
    first, second = server.requests
    assert "mcp__ed__echo" in [t["function"]["name"] for t in first["tools"]]
    assert [m["content"] for m in second["messages"] if m["role"] == "tool"] == ["echo: child"]
    assert "echo: child" in done.result.text


async def test_an_agent_with_mcp_none_starts_no_servers(
    project: Path, server: OpenAIServer, warm: Path, tmp_path: Path
) -> None:
    serve(server)
    marker = tmp_path / "never.started"
    path = write_agent(user_agents(), "plain", model="openai/helper")
    path.write_text(path.read_text().replace("---\nYou", "mcp: none\n---\nYou"), encoding="utf-8")
    server.add(Reply(text="no servers here"))

    done = await call(
        project,
        {"agent": "plain", "task": "anything"},
        mcp_servers={"ed": stdio_entry(marker)},
    )

    assert not done.result.is_error, done.result.text
    assert not marker.exists()
    assert not [t for t in server.requests[0]["tools"] if t["function"]["name"].startswith("mcp")]
