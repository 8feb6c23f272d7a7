"""A chat request's body goes to the server as the OpenAI SDK would have sent it, without the
SDK's walk over it (`processes.plain_requests`): the body litellm builds for a turn with tool
calls, tool results and the built-in tools, caught on its way and given to both."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from support.openai_server import OpenAIServer, Reply

from workbench.agent.models.client import ModelInfo, ModelRequest, TextDelta
from workbench.agent.models.litellm_client import LitellmModel
from workbench.agent.models.litellm_import import loaded
from workbench.agent.tools import builtin_tools
from workbench.messages import Message, ToolCall

TURN = [
    Message("user", "what is in notes.txt? and in é.md"),
    Message("assistant", "", tool_calls=[ToolCall("call_1", "read", {"path": "notes.txt"})]),
    Message("tool_result", "some notes\n", tool_call_id="call_1", tool_name="read"),
    Message("assistant", "It holds some notes; now the other one."),
    Message("user", "thanks"),
]


@pytest.fixture
def sent_bodies(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, Any]]:
    """Each (body, its parameter type) the chat resource is given to transform, as it is."""
    loaded()
    from openai.resources.chat.completions import completions

    seen: list[tuple[Any, Any]] = []
    installed = completions.async_maybe_transform

    async def catching(data: Any, expected_type: Any) -> Any:
        seen.append((data, expected_type))
        return await installed(data, expected_type)

    monkeypatch.setattr(completions, "async_maybe_transform", catching)
    return seen


def test_a_turns_body_is_sent_as_the_sdk_would_have_sent_it_without_its_walk(
    sent_bodies: list[tuple[Any, Any]],
) -> None:
    from openai._utils import async_maybe_transform as sdk_walk
    from openai.resources.chat.completions import completions

    request = ModelRequest("be brief", TURN, tools=builtin_tools(), cache_key="session-1")
    with OpenAIServer() as server:
        server.add(Reply(text="answered"))
        model = LitellmModel(ModelInfo("openai/local-model"), api_base=server.url, api_key="k")

        async def ask() -> str:
            pieces = [d async for d in model.stream(request)]
            return "".join(d.text for d in pieces if isinstance(d, TextDelta))

        assert asyncio.run(ask()) == "answered"
        received = server.requests[0]
    [(body, kind)] = sent_bodies
    fast = asyncio.run(completions.async_maybe_transform(body, kind))
    assert fast == asyncio.run(sdk_walk(body, kind))
    assert fast["messages"] is body["messages"], "sent as it was, not walked and rebuilt"
    assert received["messages"] == fast["messages"] and received["tools"] == fast["tools"]
    [result] = [m for m in fast["messages"] if m["role"] == "tool"]
    assert result["tool_call_id"] == "call_1" and "some notes" in str(result["content"])
    assert [t["function"]["name"] for t in fast["tools"]] == [t.name for t in builtin_tools()]


def test_a_body_that_is_not_plain_json_is_left_to_the_sdk() -> None:
    loaded()
    from openai._utils import async_maybe_transform as sdk_walk
    from openai.resources.chat.completions import completions
    from openai.types.chat import completion_create_params as params

    kind = params.CompletionCreateParamsStreaming
    messages = ({"role": "user", "content": "hi"},)  # a tuple: the SDK makes it a list
    body = {"messages": messages, "model": "m", "stream": True}
    fast = asyncio.run(completions.async_maybe_transform(body, kind))
    assert fast == asyncio.run(sdk_walk(body, kind))
    assert fast["messages"] == [{"role": "user", "content": "hi"}]
