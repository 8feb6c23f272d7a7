"""Prompt caching and costs through the real litellm code path, against local servers that speak
the provider's wire format: the Anthropic Messages API (`support.anthropic_server`) and the
OpenAI chat API (`support.openai_server`). What the request bodies carry (breakpoints, the cache
key) and what the events and the state report (cache reads and writes, cost, hit rate) are
checked against figures worked out by hand from litellm's price map."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.anthropic_server import AnthropicReply, AnthropicServer, PromptCache, breakpoints
from support.openai_server import OpenAIServer, Reply
from support.turns import of_type, recorded, run
from support.workbench_process import write_user_settings

from workbench.agent.events import Event
from workbench.runtime import Workbench, WorkbenchOptions
from workbench.skills.graph import SkillGraph

CLAUDE = "anthropic/claude-sonnet-4-5"
"""litellm's map: $3 / $15 per million in / out, $0.30 a cache read, $3.75 a cache write (five
minutes), $6 a cache write kept for an hour."""
UNPRICED_CLAUDE = "anthropic/claude-unreleased-9"


def usage(read: int, write: int, uncached: int = 10, output: int = 7) -> dict[str, int]:
    return {
        "input_tokens": uncached,
        "cache_creation_input_tokens": write,
        "cache_read_input_tokens": read,
        "output_tokens": output,
    }


@pytest.fixture
def anthropic() -> Iterator[AnthropicServer]:
    with AnthropicServer() as running:
        yield running


async def open_claude(
    project: Path, url: str, model: str = CLAUDE, no_cache: bool = False
) -> tuple[Workbench, list[Event]]:
    workbench = await Workbench.open(
        WorkbenchOptions(
            cwd=project,
            model=model,
            api_base=url,
            api_key="test-key",
            skills=SkillGraph([]),
            no_cache=no_cache,
        )
    )
    return workbench, recorded(workbench)


async def test_cache_reads_and_writes_arrive_with_a_hand_computed_cost(project, anthropic) -> None:
    anthropic.add(AnthropicReply("Hello.", usage=usage(read=2000, write=1000)))
    workbench, events = await open_claude(project, anthropic.url)
    assert await run(workbench, "hi") == "completed"
    reply = workbench.agent.state.messages[-1].usage
    assert reply is not None
    figures = (reply.input_tokens, reply.cache_read_tokens, reply.cache_write_tokens)
    assert figures == (10, 2000, 1000), "input tokens are the uncached ones, as Anthropic counts"
    # 10 x $3 + 2,000 x $0.30 + 1,000 x $3.75 + 7 x $15, per million
    assert reply.cost == pytest.approx(0.004485)
    end = of_type(events, "message_end")[-1]["message"]["usage"]
    assert end["cache_read_tokens"] == 2000 and end["cache_write_tokens"] == 1000
    update = of_type(events, "usage_update")[-1]
    assert update["total_cost"] == pytest.approx(0.004485)
    assert update["last_turn_hit_rate"] == pytest.approx(2000 / 3010)
    assert update["totals"]["cache_write_tokens"] == 1000
    state = workbench.state()
    assert (state.cache_read_tokens, state.cache_write_tokens, state.input_tokens) == (
        2000,
        1000,
        10,
    )
    assert state.session_hit_rate == pytest.approx(2000 / 3010)
    assert of_type(events, "turn_end")[-1]["usage"]["cost"] == pytest.approx(0.004485)
    await workbench.close()


async def test_breakpoints_mark_the_system_prompt_and_the_last_user_messages(
    project, anthropic
) -> None:
    (project / "data.txt").write_text("forty-two\n")
    call = {"name": "read", "arguments": {"path": "data.txt"}, "id": "toolu_1"}
    anthropic.add(
        AnthropicReply(tool_calls=[call], usage=usage(read=0, write=3000)),
        AnthropicReply("It is forty-two.", usage=usage(read=3000, write=200)),
    )
    workbench, _ = await open_claude(project, anthropic.url)
    assert await run(workbench, "what is in data.txt?") == "completed"
    first, second = anthropic.requests
    assert breakpoints(first) == ["system[0]", "messages[0].content[0] (user)"]
    assert first["system"][0]["text"] == workbench.system_prompt
    assert first["system"][1] == {"type": "text", "text": f"Working folder: {project}"}
    assert "Working folder" not in first["system"][0]["text"], "nothing per-fork before it"
    assert breakpoints(second) == [
        "system[0]",
        "messages[0].content[0] (user)",
        "messages[2].content[0] (user)",
    ]
    assert second["messages"][2]["content"][0]["type"] == "tool_result"
    assert second["system"] == first["system"], "the cached prefix is byte-identical"
    assert second["tools"] == first["tools"]
    state = workbench.state()
    assert (state.cache_read_tokens, state.cache_write_tokens) == (3000, 3200)
    assert state.last_turn_hit_rate == pytest.approx(3000 / 3210)
    assert state.session_hit_rate == pytest.approx(3000 / (20 + 3000 + 3200))
    await workbench.close()


async def test_long_retention_asks_for_an_hour_and_prices_writes_at_that_rate(
    project, anthropic
) -> None:
    write_user_settings({"cache_retention": "long"})
    anthropic.add(AnthropicReply("ok", usage=usage(read=0, write=1000, uncached=0, output=0)))
    workbench, _ = await open_claude(project, anthropic.url)
    assert await run(workbench, "hi") == "completed"
    assert breakpoints(anthropic.requests[0]) == [
        "system[0] ttl=1h",
        "messages[0].content[0] (user) ttl=1h",
    ]
    assert workbench.agent.state.messages[-1].usage.cost == pytest.approx(1000 * 6e-6)
    await workbench.close()


@pytest.mark.parametrize("how", ["flag", "setting"])
async def test_caching_turned_off_sends_no_breakpoints(project, anthropic, how: str) -> None:
    if how == "setting":
        write_user_settings({"cache": False})
    anthropic.add(AnthropicReply("ok"))
    workbench, _ = await open_claude(project, anthropic.url, no_cache=how == "flag")
    assert await run(workbench, "hi") == "completed"
    sent = anthropic.requests[0]
    assert breakpoints(sent) == []
    assert sent["system"][0]["text"].endswith(f"Working folder: {project}\n")
    await workbench.close()


async def test_a_reply_without_usage_and_a_model_without_price(project, anthropic) -> None:
    anthropic.add(
        AnthropicReply("no figures", usage=None),
        AnthropicReply("figures, no price", usage=usage(read=500, write=0)),
    )
    workbench, events = await open_claude(project, anthropic.url, model=UNPRICED_CLAUDE)
    assert workbench.state().total_cost is None, "unknown before the first call, never $0"
    assert await run(workbench, "one") == "completed"
    assert workbench.agent.state.messages[-1].usage is None
    assert of_type(events, "usage_update") == []
    assert workbench.state().session_hit_rate is None
    assert await run(workbench, "two") == "completed"
    assert breakpoints(anthropic.requests[1])[0] == "system[0]", "litellm says it takes them"
    reply = workbench.agent.state.messages[-1].usage
    assert reply.cache_read_tokens == 500 and reply.cost is None
    state = workbench.state()
    assert state.total_cost is None and state.session_hit_rate == pytest.approx(500 / 510)
    assert of_type(events, "usage_update")[-1]["totals"]["cost"] is None
    await workbench.close()


async def test_openai_style_providers_get_the_session_as_prompt_cache_key(project) -> None:
    with OpenAIServer() as server:
        cached = {"prompt_tokens": 1200, "completion_tokens": 10}
        cached["prompt_tokens_details"] = {"cached_tokens": 1024}  # type: ignore[assignment]
        server.add(Reply(text="ok", usage=cached))
        workbench = await Workbench.open(
            WorkbenchOptions(
                cwd=project,
                model="openai/gpt-4.1",
                api_base=server.url,
                api_key="test-key",
                skills=SkillGraph([]),
            )
        )
        assert await run(workbench, "hi") == "completed"
        sent = server.requests[0]
        assert sent["prompt_cache_key"] == workbench.state().session_id
        assert sent["messages"][0]["content"].endswith(f"Working folder: {project}\n")
        reply = workbench.agent.state.messages[-1].usage
        # OpenAI counts the cached tokens in prompt_tokens: 176 uncached + 1,024 read
        assert (reply.input_tokens, reply.cache_read_tokens) == (176, 1024)
        # 176 x $2 + 1,024 x $0.50 + 10 x $8, per million
        assert reply.cost == pytest.approx((176 * 2 + 1024 * 0.5 + 10 * 8) / 1e6)
        assert workbench.state().session_hit_rate == pytest.approx(1024 / 1200)
        await workbench.close()

        server.add(Reply(text="ok"))  # a model litellm does not know: a local server, maybe
        local = await Workbench.open(
            WorkbenchOptions(
                cwd=project,
                model="openai/my-local-model",
                api_base=server.url,
                api_key="test-key",
                skills=SkillGraph([]),
            )
        )
        assert await run(local, "hi") == "completed"
        assert "prompt_cache_key" not in server.requests[1], "it might refuse an unknown field"
        await local.close()


async def test_a_simulated_cache_reads_what_the_previous_call_wrote(project) -> None:
    with AnthropicServer(cache=PromptCache()) as server:
        server.add(AnthropicReply("one"), AnthropicReply("two"))
        workbench, events = await open_claude(project, server.url)
        assert await run(workbench, "first question") == "completed"
        assert await run(workbench, "second question") == "completed"
        first, second = (e["usage"] for e in of_type(events, "usage_update"))
        assert first["cache_read_tokens"] == 0 and first["cache_write_tokens"] > 0
        assert second["cache_read_tokens"] == first["cache_write_tokens"], (
            "the second call reads the whole prefix the first wrote"
        )
        assert workbench.state().last_turn_hit_rate > 0.5
        await workbench.close()


def test_rpc_events_and_get_state_carry_the_figures(project, anthropic, rpc_process) -> None:
    anthropic.add(
        AnthropicReply("one", usage=usage(read=0, write=1000)),
        AnthropicReply("two", usage=usage(read=1000, write=50)),
    )
    args = ("--model", CLAUDE, "--api-base", anthropic.url, "--api-key", "test-key")
    rpc = rpc_process(*args, cwd=project)
    for number, text in enumerate(["first", "second"]):
        rpc.send(type="prompt", text=text, id=number)
        rpc.wait_type("agent_end")
    rpc.send(type="get_state", id="state")
    state = rpc.wait_type("response", id="state")["data"]
    update = [e for e in rpc.events if e["type"] == "usage_update"][-1]
    ends = [e for e in rpc.events if e["type"] == "message_end"]
    assert ends[-1]["message"]["usage"]["cache_read_tokens"] == 1000
    # 20 x $3 + 1,000 x $0.30 + 1,050 x $3.75 + 14 x $15, per million
    expected = (20 * 3 + 1000 * 0.3 + 1050 * 3.75 + 14 * 15) / 1e6
    assert state["total_cost"] == pytest.approx(expected)
    assert update["totals"]["cost"] == pytest.approx(expected)
    assert (state["cache_read_tokens"], state["cache_write_tokens"]) == (1000, 1050)
    assert (state["input_tokens"], state["output_tokens"]) == (20, 14)
    assert state["last_turn_hit_rate"] == update["last_turn_hit_rate"] == pytest.approx(1000 / 1060)
    assert state["session_hit_rate"] == pytest.approx(1000 / 2070)
    assert [e["usage"]["calls"] for e in rpc.events if e["type"] == "turn_end"] == [1, 1]
    assert rpc.close() == 0


async def test_a_compaction_summary_asks_for_no_cache_and_its_cost_counts(
    project, anthropic
) -> None:
    write_user_settings({"compaction": {"keep_recent_tokens": 10}})
    anthropic.add(
        AnthropicReply("first answer " * 20, usage=usage(read=0, write=0)),
        AnthropicReply("second answer", usage=usage(read=0, write=0)),
        AnthropicReply("## Goal\nanswer", usage=usage(read=0, write=0, uncached=2000, output=100)),
    )
    workbench, events = await open_claude(project, anthropic.url)
    assert await run(workbench, "one") == "completed"
    assert await run(workbench, "two") == "completed"
    before = workbench.state().total_cost
    await workbench.compact()
    await workbench.wait_idle()
    assert of_type(events, "compaction_end")[-1]["error"] is None
    assert breakpoints(anthropic.requests[2]) == [], "nobody reads a summary request back"
    # 2,000 x $3 + 100 x $15, per million
    assert workbench.state().total_cost == pytest.approx(before + 0.0075)
    await workbench.close()
