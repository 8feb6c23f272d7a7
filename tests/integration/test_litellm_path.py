"""The real litellm code path against the local SSE server, driven through the Workbench API."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path

import pytest
from support.openai_server import CONTEXT_OVERFLOW, OpenAIServer, Reply, Status
from support.turns import of_type, recorded, run
from support.workbench_process import write_user_settings

from workbench.agent.events import Event
from workbench.agent.store import MemoryStore
from workbench.messages import Message
from workbench.runtime import Workbench, WorkbenchOptions
from workbench.skills.graph import SkillGraph

MODEL = "openai/test-model"
FAST_RETRIES = {"retry": {"base_delay_ms": 1, "max_retries": 2}}


async def open_session(
    project: Path, server: OpenAIServer, store: MemoryStore | None = None
) -> tuple[Workbench, list[Event]]:
    workbench = await Workbench.open(
        WorkbenchOptions(
            cwd=project,
            model=MODEL,
            api_base=server.url,
            api_key="test-key",
            store=store,
            skills=SkillGraph([]),
        )
    )
    return workbench, recorded(workbench)


async def test_text_streams_in_pieces_with_usage_and_unknown_cost(project, server) -> None:
    server.add(
        Reply(
            text="Hello from the local server.", usage={"prompt_tokens": 42, "completion_tokens": 6}
        )
    )
    workbench, events = await open_session(project, server)
    assert workbench.state().total_cost is None, "unknown before the first call too, not $0"
    assert await run(workbench, "hi") == "completed"
    deltas = [e["delta"] for e in of_type(events, "message_update")]
    assert len(deltas) == 5 and "".join(deltas) == "Hello from the local server."
    reply = workbench.agent.state.messages[-1]
    assert reply.stop_reason == "stop"
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (42, 6)
    assert reply.usage.cost is None, "an unknown model's cost is unknown, not zero"
    usage = of_type(events, "usage_update")[-1]
    assert usage["total_cost"] is None and usage["context_tokens"] == 48
    sent = server.requests[0]
    assert sent["stream"] is True and sent["stream_options"] == {"include_usage": True}
    tools = [t["function"]["name"] for t in sent["tools"]]
    assert tools == ["read", "bash", "edit", "write"], "no skills: no skill tools to offer"
    assert sent["messages"][0]["role"] == "system"
    assert sent["messages"][1] == {"role": "user", "content": "hi"}


async def test_tool_call_fragments_are_assembled_and_run(project, server) -> None:
    (project / "data.txt").write_text("forty-two\n")
    call = {"name": "read", "arguments": {"path": "data.txt", "limit": 5}, "id": "call_x"}
    server.add(Reply(tool_calls=[call], fragment_size=3), Reply(text="It is forty-two."))
    workbench, events = await open_session(project, server)
    assert await run(workbench, "what is in data.txt?") == "completed"
    started = of_type(events, "tool_execution_start")
    assert started == [
        {
            "type": "tool_execution_start",
            "tool_call_id": "call_x",
            "tool_name": "read",
            "args": {"path": "data.txt", "limit": 5},
        }
    ]
    fragments = [
        e["delta"] for e in of_type(events, "message_update") if e["delta_type"] == "tool_call"
    ]
    assert "".join(fragments) == json.dumps(call["arguments"])
    followup = server.requests[1]["messages"]
    assert followup[-1] == {"role": "tool", "tool_call_id": "call_x", "content": "forty-two"}
    assert json.loads(followup[-2]["tool_calls"][0]["function"]["arguments"]) == call["arguments"]


async def test_rate_limit_is_retried_after_the_servers_delay(project, server) -> None:
    server.add(Status(429, "slow down", retry_after=0.05), Reply(text="ok now"))
    workbench, events = await open_session(project, server)
    assert await run(workbench, "hi") == "completed"
    start, end = of_type(events, "retry_start"), of_type(events, "retry_end")
    assert [(s["attempt"], s["delay_ms"]) for s in start] == [(1, 50.0)]
    assert "slow down" in start[0]["error"]
    assert end == [
        {"type": "retry_end", "attempt": 1, "success": True, "error": None, "kind": "rate_limit"}
    ]
    assert start[0]["kind"] == "rate_limit"
    assert len(server.requests) == 2, "litellm and the SDK must not retry on their own"


async def test_overload_and_server_errors_back_off_then_give_up(project, server) -> None:
    write_user_settings(FAST_RETRIES)
    server.add(Status(503, "overloaded"), Status(500, "boom"), Status(502, "bad gateway"))
    workbench, events = await open_session(project, server)
    assert await run(workbench, "hi") == "error"
    assert [s["delay_ms"] for s in of_type(events, "retry_start")] == [1.0, 2.0]
    assert of_type(events, "retry_end")[-1]["success"] is False
    assert "bad gateway" in of_type(events, "agent_end")[0]["error"]
    assert len(server.requests) == 3


async def test_a_stream_cut_off_without_finish_reason_is_truncated(project, server) -> None:
    server.add(Reply(text="This answer stops right here", cut_after=4))
    workbench, events = await open_session(project, server)
    assert await run(workbench, "hi") == "error"
    reply = workbench.agent.state.messages[-1]
    assert reply.stop_reason == "truncated" and reply.text == "This answer stops "
    error = of_type(events, "error")[0]
    assert "cut off" in error["message"]
    assert error["hint"] == (
        "its first 18 characters are kept in the conversation: send “continue” to go on from "
        "there, or send your request again"
    )


async def test_a_dropped_connection_mid_stream_keeps_the_partial_reply(project, server) -> None:
    server.add(
        Reply(text="Partial words then the line drops", cut_after=3, cut="drop", delay_s=0.05)
    )
    workbench, events = await open_session(project, server)
    assert await run(workbench, "hi") == "error"
    reply = workbench.agent.state.messages[-1]
    assert reply.stop_reason == "error" and reply.text == "Partial words "
    assert of_type(events, "agent_end")[0]["stop_reason"] == "error"


async def test_a_refused_key_names_the_provider_and_where_the_key_came_from(
    project, server, monkeypatch
) -> None:
    server.add(Status(401, "Incorrect API key provided"), Status(401, "no key"))
    workbench, events = await open_session(project, server)
    assert await run(workbench, "hi") == "error"
    error = of_type(events, "error")[0]
    assert (
        f"the server at {server.url} refused the API key for {MODEL} (openai)" in (error["message"])
    )
    assert "Incorrect API key provided" in error["message"]
    assert error["hint"] == "the key came from --api-key: check it there"
    assert len(server.requests) == 1, "a refused key is not retried"

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    options = WorkbenchOptions(cwd=project, model=MODEL, api_base=server.url, skills=SkillGraph([]))
    keyless = await Workbench.open(options)
    events = recorded(keyless)
    assert await run(keyless, "hi") == "error"
    hint = of_type(events, "error")[0]["hint"]
    assert hint == "the server wants a key: pass it with --api-key, or set OPENAI_API_KEY"


async def test_context_overflow_compacts_and_retries_once(project, server) -> None:
    write_user_settings({"compaction": {"keep_recent_tokens": 10}})
    store = MemoryStore()
    for role, text in [("user", "GOAL: port the parser"), ("assistant", "On it. " * 40)]:
        await store.append(role, Message(role=role, text=text).to_dict())
    server.add(CONTEXT_OVERFLOW, Reply(text="## Goal\nport the parser"), Reply(text="continuing"))
    workbench, events = await open_session(project, server, store)
    assert await run(workbench, "next step please") == "completed"
    assert [e["reason"] for e in of_type(events, "compaction_start")] == ["overflow"]
    summary_request = server.requests[1]["messages"]
    assert "<conversation>" in summary_request[-1]["content"]
    assert "GOAL: port the parser" in summary_request[-1]["content"]
    retried = server.requests[2]["messages"]
    assert [m["role"] for m in retried] == ["system", "user", "assistant", "user"]
    assert retried[1]["content"].endswith("## Goal\nport the parser")
    assert "GOAL" not in json.dumps(retried[2:]), "the summarised message is gone"
    assert retried[3] == {"role": "user", "content": "next step please"}
    assert workbench.agent.state.messages[-1].text == "continuing"


async def test_a_second_overflow_is_an_error(project, server) -> None:
    write_user_settings({"compaction": {"keep_recent_tokens": 10}})
    store = MemoryStore()
    for role, text in [("user", "GOAL: port the parser"), ("assistant", "On it. " * 40)]:
        await store.append(role, Message(role=role, text=text).to_dict())
    server.add(CONTEXT_OVERFLOW, Reply(text="## Goal\nx"), CONTEXT_OVERFLOW)
    workbench, events = await open_session(project, server, store)
    assert await run(workbench, "go") == "error"
    assert "maximum context length" in of_type(events, "agent_end")[0]["error"]
    assert len(server.requests) == 3


async def test_overflow_with_nothing_older_reports_the_overflow(project, server) -> None:
    server.add(CONTEXT_OVERFLOW)
    workbench, events = await open_session(project, server)
    assert await run(workbench, "a single huge prompt") == "error"
    assert "maximum context length" in of_type(events, "agent_end")[0]["error"]
    assert of_type(events, "compaction_end")[0]["error"].startswith("nothing to compact")


async def test_prices_from_settings_give_a_cost(project, server) -> None:
    write_user_settings({"models": {MODEL: {"cost": {"input": 2, "output": 10}}}})
    server.add(Reply(text="priced", usage={"prompt_tokens": 1000, "completion_tokens": 100}))
    workbench, _ = await open_session(project, server)
    await run(workbench, "hi")
    assert workbench.agent.state.messages[-1].usage.cost == pytest.approx(0.003)
    assert workbench.state().total_cost == pytest.approx(0.003)


async def test_abort_during_a_retry_wait_is_immediate(project, server) -> None:
    server.add(Status(429, "wait a long time", retry_after=30))
    workbench, events = await open_session(project, server)
    await workbench.prompt("hi")
    while not of_type(events, "retry_start"):
        await asyncio.sleep(0.01)
    started = time.monotonic()
    await workbench.abort()
    assert time.monotonic() - started < 1
    assert await workbench.wait_idle() == "aborted"
    assert of_type(events, "retry_end")[-1]["error"] == "aborted"


async def test_compact_by_hand_with_a_focus(project, server) -> None:
    write_user_settings({"compaction": {"keep_recent_tokens": 10}})
    server.add(
        Reply(text="First answer, " + " ".join(f"w{n}" for n in range(60))),
        Reply(text="## Goal\nthe API\n\n## Progress"),
        Reply(text="after compaction"),
    )
    workbench, events = await open_session(project, server)
    await run(workbench, "describe the API")
    await workbench.prompt("/compact keep the API notes")
    await workbench.wait_idle()
    end = of_type(events, "compaction_end")[-1]
    assert end["reason"] == "manual" and end["error"] is None
    assert end["message"]["text"].startswith("## Goal\nthe API")
    summary_prompt = server.requests[1]["messages"][-1]["content"]
    assert summary_prompt.endswith("Pay particular attention to: keep the API notes")
    await run(workbench, "go on")
    after = server.requests[2]["messages"]
    assert after[1]["content"].endswith("## Goal\nthe API\n\n## Progress")
    assert "describe the API" not in json.dumps(after), "the first exchange was summarised"


async def test_reasoning_streams_as_thinking_and_stays_home(project, server) -> None:
    server.add(Reply(text="42", reasoning="let me think"), Reply(text="ok"))
    workbench, events = await open_session(project, server)
    await run(workbench, "question")
    kinds = [(e["delta_type"], e["delta"]) for e in of_type(events, "message_update")]
    assert kinds[0] == ("thinking", "let me think")
    assert workbench.agent.state.messages[-1].thinking == "let me think"
    await run(workbench, "again")
    assert "let me think" not in json.dumps(server.requests[1]["messages"])


async def test_a_first_call_during_the_preload_waits_for_it_off_the_event_loop(
    project, server, monkeypatch
) -> None:
    from workbench.agent.models import litellm_client

    server.add(Reply(text="after the warm-up"))
    monkeypatch.setattr(litellm_client, "_prepared", False)  # as in a fresh process
    preloading = litellm_client.preload()  # its own stub call must not wait for itself
    assert preloading is not None
    workbench, _ = await open_session(project, server)
    assert await asyncio.wait_for(run(workbench, "hi"), 60) == "completed"
    assert (
        not preloading.is_alive() and workbench.agent.state.messages[-1].text == "after the warm-up"
    )
    assert len(server.requests) == 1, "the warm-up called its own stub, not the model's server"


def test_the_warm_up_leaves_nothing_for_a_turn_to_import(server, tmp_path) -> None:
    """A warm interpreter forks every run after `warm_up`: what a run imports after that, each
    run pays for again: litellm's handling of a first call that offers tools (its MCP part,
    50 ms), and our own modules (compiled anew by every run where no bytecode is written). In a
    fresh process: this one may have imported them."""
    import subprocess
    import sys

    server.add(Reply(tool_calls=[{"name": "read", "arguments": {"path": "x"}}]), Reply(text="ok"))
    argv = ["-p", "--model", MODEL, "--api-base", server.url, "--api-key", "k", "read x"]
    script = (
        "import sys\n"
        "from workbench import cli\n"
        "cli.warm_up()\n"
        "print('litellm.responses.mcp.chat_completions_handler' in sys.modules)\n"
        "before = set(sys.modules)\n"
        f"code = cli.main({argv!r})\n"
        "print(code, sorted(m for m in set(sys.modules) - before if m.startswith('workbench')))\n"
    )
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=project,
        env={**os.environ, "WORKBENCH_WARM_START": "0"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.strip().splitlines()
    assert (lines[0], lines[-1]) == ("True", "0 []"), done.stdout
