"""A reply ends where the provider's stream ends: the tool runs and the next request leaves
without litellm's end-of-stream work (its rebuild of the reply, its pricing, its success
logging), and the reply, its usage and the request after it are what they were with it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.anthropic_server import AnthropicReply, AnthropicServer, usage_of
from support.openai_server import OpenAIServer, Reply
from support.turns import of_type, recorded, run

from workbench.agent.models import litellm_client
from workbench.agent.models.off_loop import background_loop
from workbench.runtime import Workbench, WorkbenchOptions
from workbench.skills.graph import SkillGraph

READ = {"name": "read", "arguments": {"path": "data.txt"}, "id": "call_r"}


@pytest.fixture
def litellm_logs() -> Iterator[list[str]]:
    """What litellm's callbacks were told (a `CustomLogger`, litellm's own extension point):
    one entry per success or failure it logged."""
    from litellm.integrations.custom_logger import CustomLogger

    litellm = litellm_client._litellm()
    logs: list[str] = []

    class Recorder(CustomLogger):  # type: ignore[misc]  # untyped
        async def async_log_success_event(self, *_: Any, **__: Any) -> None:
            logs.append("success")

        async def async_log_failure_event(self, *_: Any, **__: Any) -> None:
            logs.append("failure")

    recorder = Recorder()
    litellm.callbacks.append(recorder)
    try:
        yield logs
    finally:  # from the lists litellm copied it into at a call too
        litellm.logging_callback_manager.remove_callback_from_all_lists(recorder)


async def settled() -> None:
    """Until the background loop (where litellm's logging tasks run) has gone round a few
    times: tasks litellm started by then have had their turns."""
    for _ in range(20):
        await asyncio.wrap_future(
            asyncio.run_coroutine_threadsafe(asyncio.sleep(0), background_loop())
        )


async def open_session(project: Path, model: str, api_base: str) -> Workbench:
    return await Workbench.open(
        WorkbenchOptions(
            cwd=project, model=model, api_base=api_base, api_key="k", skills=SkillGraph([])
        )
    )


async def test_a_tool_reply_ends_at_the_providers_end_with_its_usage(
    project: Path, server: OpenAIServer, litellm_logs: list[str]
) -> None:
    (project / "data.txt").write_text("forty-two\n")
    usage = {"prompt_tokens": 300, "completion_tokens": 12, "prompt_tokens_details": {}}
    usage["prompt_tokens_details"] = {"cached_tokens": 200}
    server.add(Reply(text="Reading.", tool_calls=[READ], usage=usage), Reply(text="42."))
    workbench = await open_session(project, "openai/test-model", server.url)
    events = recorded(workbench)
    assert await run(workbench, "what is in data.txt?") == "completed"
    await settled()
    assert litellm_logs == [], "litellm's end-of-stream logging ran"
    asked = workbench.agent.state.messages[1]
    assert (asked.text, asked.stop_reason, asked.tool_calls[0].arguments) == (
        "Reading.",
        "tool_calls",
        {"path": "data.txt"},
    )
    assert asked.usage is not None
    assert (asked.usage.input_tokens, asked.usage.cache_read_tokens) == (100, 200)
    assert asked.usage.output_tokens == 12
    assert [e["delta_type"] for e in of_type(events, "message_update")].count("tool_call") > 1
    followup = server.requests[1]["messages"]
    assert followup[-1] == {"role": "tool", "tool_call_id": "call_r", "content": "forty-two"}
    assert json.loads(followup[-2]["tool_calls"][0]["function"]["arguments"]) == READ["arguments"]
    assert workbench.agent.state.messages[-1].text == "42."


async def test_an_anthropic_reply_ends_there_too_with_both_halves_of_its_usage(
    project: Path, litellm_logs: list[str]
) -> None:
    """Anthropic reports the input side first (`message_start`) and the output last."""
    reply = AnthropicReply(text="Hello.", usage=usage_of(10, 200, 30, 7))
    with AnthropicServer([reply]) as anthropic:
        workbench = await open_session(project, "anthropic/claude-sonnet-4-5", anthropic.url)
        assert await run(workbench, "hi") == "completed"
    await settled()
    assert litellm_logs == []
    usage = workbench.agent.state.messages[-1].usage
    assert usage is not None
    counts = (usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens)
    assert (*counts, usage.output_tokens) == (10, 200, 30, 7)


async def test_a_stream_without_a_finish_reason_still_goes_through_litellms_end(
    project: Path, server: OpenAIServer, litellm_logs: list[str]
) -> None:
    """Without a finish reason there is nothing to end early on: litellm ends it as before."""
    server.add(Reply(text="Cut here", finish_reason=None))
    workbench = await open_session(project, "openai/test-model", server.url)
    assert await run(workbench, "hi") == "error"
    assert workbench.agent.state.messages[-1].stop_reason == "truncated"
    for _ in range(500):  # litellm's logging runs as a task of its own: until it has
        await settled()
        if litellm_logs:
            break
        await asyncio.sleep(0.01)
    assert litellm_logs == ["success"]
