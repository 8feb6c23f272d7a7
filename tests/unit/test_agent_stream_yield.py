"""A burst of chunks that a provider sent at once must not hold the event loop for its whole
length: the app's keystrokes and redraws run on the same loop while the reply streams."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

from workbench.agent.loop import Agent
from workbench.agent.models.client import Delta, Finish, ModelInfo, ModelRequest, TextDelta
from workbench.agent.store import MemoryStore
from workbench.messages import Message

CHUNKS = 100
CHUNK_WORK_S = 0.001


class Burst:
    """A model whose chunks are all buffered already: iterating them never awaits anything that
    waits, and each one costs a little CPU time (parsing, as litellm's does)."""

    info = ModelInfo("burst", offline=True)

    async def stream(self, request: ModelRequest) -> AsyncIterator[Delta]:
        for i in range(CHUNKS):
            time.sleep(CHUNK_WORK_S)  # blocking on purpose: work done per chunk
            yield TextDelta(f"w{i} ")
        yield Finish("stop")


async def test_a_burst_of_chunks_lets_other_tasks_run_while_it_streams(tmp_path: Path) -> None:
    streamed: list[str] = []
    agent = Agent(
        model=Burst(),
        tools=[],
        store=MemoryStore(),
        emit=lambda e: streamed.append(e.delta) if e.type == "message_update" else None,
        cwd=tmp_path,
    )
    seen_mid_stream: list[int] = []

    async def keystrokes() -> None:
        """Stands for the app: notes how far the reply had streamed each time it got a turn."""
        while True:
            if 0 < len(streamed) < CHUNKS:
                seen_mid_stream.append(len(streamed))
            await asyncio.sleep(0)

    typing = asyncio.create_task(keystrokes())
    await asyncio.sleep(0)
    try:
        assert await agent.start([Message(role="user", text="go")], "system") == "completed"
    finally:
        typing.cancel()
    assert len(streamed) == CHUNKS
    # ~100 ms of chunks: the loop got turns mid-stream (every ~10 ms), not once at the end.
    assert len(set(seen_mid_stream)) >= 3, seen_mid_stream
    # ...and not after every chunk, which slowed long streams down.
    assert len(set(seen_mid_stream)) < CHUNKS // 2, seen_mid_stream
