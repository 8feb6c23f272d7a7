"""litellm's dispatch of a call runs on the calling thread only for providers whose dispatch
builds the request and nothing else; one that may wait for credentials keeps its worker thread."""

from __future__ import annotations

import asyncio
import threading

from workbench.agent.models.dispatch import DispatchExecutor, first_job_here


async def _threads_of_two_jobs(provider: str) -> list[threading.Thread]:
    asyncio.get_running_loop().set_default_executor(DispatchExecutor(max_workers=1))
    loop = asyncio.get_running_loop()
    with first_job_here(provider):
        first = await loop.run_in_executor(None, threading.current_thread)
        second = await loop.run_in_executor(None, threading.current_thread)
    return [first, second]


async def test_an_openai_call_is_dispatched_on_the_calling_thread_and_only_its_first_job() -> None:
    first, second = await _threads_of_two_jobs("openai")
    assert first is threading.current_thread()
    assert second is not threading.current_thread()


async def test_a_call_whose_dispatch_may_wait_for_credentials_keeps_its_worker_thread() -> None:
    for provider in ("bedrock", "vertex_ai", ""):
        first, _ = await _threads_of_two_jobs(provider)
        assert first is not threading.current_thread(), provider
