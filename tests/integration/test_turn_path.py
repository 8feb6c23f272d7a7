"""The path from a tool's result to the next request: what stands on it is only what must."""

from __future__ import annotations

import asyncio
import threading

from support.openai_server import OpenAIServer, Reply

from workbench.agent.models.client import ModelInfo, ModelRequest, TextDelta
from workbench.agent.models.dispatch import DispatchExecutor
from workbench.agent.models.litellm_client import LitellmModel
from workbench.agent.models.off_loop import stream_here
from workbench.messages import Message


async def test_a_model_call_goes_out_while_the_loops_threads_are_all_busy(
    server: OpenAIServer,
) -> None:
    """litellm's dispatch of the next call runs where the call is made: a reply does not wait
    for whatever else keeps the loop's worker threads busy (a session listing, an MCP start)."""
    stream_here()
    asyncio.get_running_loop().set_default_executor(DispatchExecutor(max_workers=1))
    server.add(Reply(text="first"), Reply(text="next"))
    model = LitellmModel(ModelInfo("openai/test-model"), api_base=server.url, api_key="k")
    request = ModelRequest("system", [Message(role="user", text="hi")])

    async def reply() -> str:
        return "".join([d.text async for d in model.stream(request) if isinstance(d, TextDelta)])

    assert await reply() == "first"  # the OpenAI SDK's one-off look-ups (its platform) done
    release = threading.Event()
    busy = asyncio.ensure_future(asyncio.to_thread(release.wait))  # the one worker, held
    try:
        assert await asyncio.wait_for(reply(), 60) == "next"
        assert not busy.done(), "the worker was still held while the call went out"
    finally:
        release.set()
        await busy
