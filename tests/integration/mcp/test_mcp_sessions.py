"""MCP servers in a real session: real servers made with the official SDK (stdio processes and a
streamable HTTP server on loopback), a model on the local SSE server that calls their tools."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from support.mcp_config import (
    allow_start,
    http_server,
    stdio_entry,
    user_file,
    wait_for,
    write_servers,
)
from support.openai_server import OpenAIServer, Reply

from workbench.agent.events import ToolExecutionStart
from workbench.logfile import log_path
from workbench.runtime import Workbench, WorkbenchOptions
from workbench.skills.graph import SkillGraph
from workbench.skills.parse import parse_skill
from workbench.trust import TrustStore


@asynccontextmanager
async def session(
    project: Path, server: OpenAIServer, **options: Any
) -> AsyncIterator[tuple[Workbench, list[Any]]]:
    """A session on the local model server, with every event it sent."""
    wb = await Workbench.open(
        WorkbenchOptions(
            cwd=project,
            model="openai/test",
            api_base=server.url,
            api_key="none",
            **{"skills": SkillGraph([]), **options},
        )
    )
    events: list[Any] = []
    wb.subscribe(events.append)
    try:
        yield wb, events
    finally:
        await wb.close()


def call(name: str, arguments: dict[str, Any], call_id: str = "c1") -> Reply:
    return Reply(text="calling", tool_calls=[{"name": name, "arguments": arguments, "id": call_id}])


def tool_results(request: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in request["messages"] if m["role"] == "tool"]


def offered(request: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools", [])]


def notices(wb: Workbench) -> str:
    return "\n".join(notice.text for notice in wb.listeners.startup_notices)


async def test_a_projects_servers_start_only_once_the_project_is_trusted(
    project: Path, server: OpenAIServer, tmp_path: Path
) -> None:
    allow_start()
    marker = tmp_path / "project-server.started"
    write_servers(project / ".mcp.json", {"proj": stdio_entry(marker)})
    server.add(Reply(text="nothing to call"))

    async with session(project, server) as (wb, _):
        assert "mcp__proj__echo" not in wb.state().tools
        said = notices(wb)
        assert "proj" in said and f"workbench trust {project}" in said
        assert wb.mcp_report().untrusted == ["proj"]
        assert await run(wb, "hello") == "completed"
    assert not marker.exists(), "an untrusted project's server was started"

    TrustStore().trust(project)
    server.add(call("mcp__proj__echo", {"text": "hi"}), Reply(text="done"))
    async with session(project, server) as (wb, _):
        assert marker.exists()
        assert await run(wb, "call it") == "completed"
    assert tool_results(server.requests[-1]) == ["echo: hi"]


async def test_trusting_the_project_in_the_session_starts_its_servers(
    project: Path, server: OpenAIServer, tmp_path: Path
) -> None:
    allow_start()
    marker = tmp_path / "late.started"
    write_servers(project / ".mcp.json", {"late": stdio_entry(marker)})
    async with session(project, server) as (wb, _):
        assert wb.needs_trust and not marker.exists()
        await wb.trust_project()
        assert marker.exists()
        assert "mcp__late__echo" in wb.state().tools


async def test_the_users_servers_over_stdio_and_http_answer_the_model(
    project: Path, server: OpenAIServer, tmp_path: Path
) -> None:
    allow_start()
    with http_server(tmp_path / "http.started") as url:
        write_servers(
            user_file(),
            {
                "local": stdio_entry(tmp_path / "local.started"),
                "remote": {"type": "http", "url": "${MCP_TEST_URL}"},
            },
        )
        server.add(
            call("mcp__local__echo", {"text": "one"}),
            call("mcp__remote__echo", {"text": "two"}, "c2"),
            call("mcp__remote__huge", {"lines": 150_000}, "c3"),  # about 10 MB
            call("mcp__remote__echo", {"text": "three"}, "c4"),
            Reply(text="both answered"),
        )
        os.environ["MCP_TEST_URL"] = url
        try:
            async with session(project, server) as (wb, _):
                state = wb.state().to_dict()["mcp"]
                assert [(s["name"], s["state"]) for s in state["servers"]] == [
                    ("local", "ready"),
                    ("remote", "ready"),
                ]
                assert await run(wb, "ask both") == "completed"
        finally:
            del os.environ["MCP_TEST_URL"]
    first, second, third, *_, last = server.requests
    assert tool_results(third) == ["echo: one", "echo: two"]
    huge, three = tool_results(last)[2:]
    assert "over the 8.0 MB workbench reads: it was dropped unread" in huge
    assert three == "echo: three", "the HTTP server is lost after a huge answer"
    assert {"mcp__local__echo", "mcp__remote__huge"} <= set(offered(first))
    echo = next(t for t in first["tools"] if t["function"]["name"] == "mcp__local__echo")
    assert echo["function"]["parameters"]["required"] == ["text"]
    assert "Say the text back." in echo["function"]["description"]
    assert "echo called with one" in log_path().read_text(), "the server's stderr is not logged"
    system = [r["messages"][0]["content"] for r in server.requests]
    assert len(set(system)) == 1, "the system prompt changed between turns"
    assert first["tools"] == second["tools"] == third["tools"] == last["tools"]


async def test_an_sse_server_answers_and_a_skills_allowed_tools_names_mcp_tools(
    project: Path, server: OpenAIServer, tmp_path: Path
) -> None:
    allow_start()
    skill = tmp_path / "skills" / "mcp-user" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(
        "---\nname: mcp-user\ndescription: Asks the MCP servers.\nlayer: compound\n"
        "allowed-tools: read mcp__legacy__echo mcp__down__echo\n---\nCall mcp__legacy__echo.\n",
        encoding="utf-8",
    )
    parsed, _ = parse_skill(skill)
    assert parsed is not None
    server.add(
        call("skill_activate", {"name": "mcp-user"}),
        call("mcp__legacy__echo", {"text": "over SSE"}, "c2"),
        Reply(text="done"),
    )
    with http_server(tmp_path / "sse.started", "sse") as url:
        write_servers(
            user_file(),
            {"legacy": {"type": "sse", "url": url}, "down": {"command": str(tmp_path / "none")}},
        )
        async with session(project, server, skills=SkillGraph([parsed])) as (wb, _):
            states = {s["name"]: (s["transport"], s["state"]) for s in wb.state().mcp["servers"]}
            assert states == {"legacy": ("sse", "ready"), "down": ("stdio", "failed")}
            assert await run(wb, "use the skill") == "completed"
    activated, echoed = tool_results(server.requests[-1])
    assert '<skill name="mcp-user"' in activated
    assert "expects tools this session does not have: mcp__down__echo." in activated
    assert echoed == "echo: over SSE"


async def test_a_server_that_dies_during_a_call_is_an_error_and_starts_again(
    project: Path, server: OpenAIServer, tmp_path: Path
) -> None:
    allow_start()
    marker = tmp_path / "crashy.started"
    write_servers(user_file(), {"crashy": stdio_entry(marker)})
    server.add(
        call("mcp__crashy__crash", {}),
        call("mcp__crashy__echo", {"text": "again"}, "c2"),
        Reply(text="recovered"),
    )
    async with session(project, server) as (wb, _):
        first_pid = marker.read_text()
        assert await run(wb, "crash it") == "completed"
        report = wb.mcp_report().render_text()
    crashed = tool_results(server.requests[1])
    assert "crashy stopped during the call" in crashed[0]
    assert "started again at the next call" in crashed[0]
    assert tool_results(server.requests[2])[-1] == "echo: again"
    assert marker.read_text() != first_pid, "the server was not started again"
    assert "last error: MCP server crashy stopped" in report


async def test_a_server_that_never_answers_is_reported_and_the_session_goes_on(
    project: Path, server: OpenAIServer, tmp_path: Path
) -> None:
    allow_start(seconds=2)
    write_servers(user_file(), {"mute": stdio_entry(tmp_path / "mute.started", "silent")})
    server.add(Reply(text="fine without it"))
    tools = ["read", "mcp__mute__echo"]
    async with session(project, server, tools=tools) as (wb, _):
        [mute] = wb.state().mcp["servers"]
        assert mute["state"] == "failed" and "did not answer within 2 s" in mute["error"]
        said = notices(wb)
        assert "MCP server mute did not start" in said
        assert "--tools names mcp__mute__echo, but MCP server mute is not running" in said
        assert wb.state().tools == ["read"]
        assert "mute" in wb.mcp_report().render_text()
        assert await run(wb, "go on") == "completed"


async def test_a_long_result_is_cut_and_a_huge_one_dropped_without_losing_the_server(
    project: Path, server: OpenAIServer, tmp_path: Path
) -> None:
    allow_start()
    write_servers(user_file(), {"big": stdio_entry(tmp_path / "big.started")})
    server.add(
        call("mcp__big__huge", {"lines": 20_000}),
        call("mcp__big__huge", {"lines": 200_000}, "c2"),
        call("mcp__big__echo", {"text": "still here"}, "c3"),
        Reply(text="read the start"),
    )
    async with session(project, server) as (wb, _):
        assert await run(wb, "get it all") == "completed"
    long, huge, echo = tool_results(server.requests[-1])
    assert long.startswith("line 0 ")
    assert len(long.encode()) < 52 * 1024
    assert "[Output cut: showing" in long and "of 20000 lines" in long
    assert "MCP server big: the server sent " in huge
    assert " MB in one message, over the 8.0 MB workbench reads" in huge
    assert "dropped unread" in huge
    assert echo == "echo: still here"


async def test_an_abort_cancels_the_call_and_tells_the_server(
    project: Path, server: OpenAIServer, tmp_path: Path
) -> None:
    allow_start()
    marker = tmp_path / "slow.started"
    write_servers(user_file(), {"slow": stdio_entry(marker)})
    server.add(call("mcp__slow__wait", {}))
    async with session(project, server) as (wb, events):
        await wb.prompt("wait for it")
        await until(lambda: any(isinstance(e, ToolExecutionStart) for e in events))
        assert await asyncio.to_thread(wait_for, marker.with_suffix(".waiting"))
        await wb.abort()
        assert await wb.wait_idle() == "aborted"
        assert await asyncio.to_thread(wait_for, marker.with_suffix(".cancelled"))


async def test_tools_names_mcp_tools_like_any_other(
    project: Path, server: OpenAIServer, tmp_path: Path
) -> None:
    allow_start()
    write_servers(user_file(), {"pick": stdio_entry(tmp_path / "pick.started")})
    server.add(Reply(text="ok"))
    async with session(project, server, tools=["read", "mcp__pick__echo"]) as (wb, _):
        assert await run(wb, "hi") == "completed"
    assert offered(server.requests[0]) == ["read", "mcp__pick__echo"]


async def test_disabled_servers_and_no_mcp_start_nothing(
    project: Path, server: OpenAIServer, tmp_path: Path
) -> None:
    allow_start(disabled=["off"])
    marker = tmp_path / "off.started"
    write_servers(user_file(), {"off": stdio_entry(marker)})
    async with session(project, server) as (wb, _):
        assert wb.state().mcp == {"servers": [], "untrusted": []}
    assert not marker.exists()


async def run(wb: Workbench, text: str) -> str | None:
    await wb.prompt(text)
    return await wb.wait_idle()


async def until(condition: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.05)
