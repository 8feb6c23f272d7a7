"""litellm's dispatch of a call, run on the thread that makes the call.

`litellm.acompletion` hands its synchronous `completion` (which builds the provider's request)
to the event loop's default executor and waits for it: a round trip to a worker thread, which on
a busy machine waits for a core twice, on the path from a tool's result to the next request, and
which waits behind any other job the loop's threads are busy with (a session listing, an MCP
start). The work itself takes a millisecond or two.

A loop whose default executor is a `DispatchExecutor` runs that job on the spot: `first_job_here`
marks a call (to a provider whose dispatch does no waiting of its own, `QUICK_DISPATCH`), and
the first job the call hands to the executor runs at once on the calling thread; every other
job (the call's name look-ups, anyone's `asyncio.to_thread`) goes to a worker thread as before.
The loops that make model calls use one: the background loop that streams for the app
(`off_loop`), and a headless run's own loop (`own_loop.claim`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextvars import ContextVar
from typing import Any, TypeVar

T = TypeVar("T")

_pending: ContextVar[list[bool] | None] = ContextVar("workbench_dispatch_pending", default=None)
"""Within a marked call: [True] until its first job has been run here."""


class DispatchExecutor(ThreadPoolExecutor):
    """A thread pool that runs a marked call's first job on the submitting thread."""

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        pending = _pending.get()
        if not pending:
            return super().submit(fn, *args, **kwargs)
        pending.clear()
        done: Future[T] = Future()
        try:
            done.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # handed to the awaiting caller, as a worker would
            done.set_exception(exc)
        return done


QUICK_DISPATCH = frozenset(
    {
        "openai", "custom_openai", "text-completion-openai", "anthropic", "openrouter", "groq",
        "deepseek", "mistral", "xai", "gemini", "ollama", "ollama_chat", "together_ai",
        "fireworks_ai", "hosted_vllm", "lm_studio", "cerebras", "perplexity", "deepinfra",
    }
)  # fmt: skip
"""Providers whose dispatch only builds the request. Others may wait on the network there
(AWS, Google or Azure credentials, an IAM token): their dispatch stays on a worker thread, so
that it never holds the loop (a `-p` run's Ctrl+C, the app's other streams)."""


@contextlib.contextmanager
def first_job_here(provider: str) -> Iterator[None]:
    """Within this block, the first job handed to a `DispatchExecutor` runs on this thread, for a
    call to `provider` (litellm's name for it) in `QUICK_DISPATCH`."""
    if provider not in QUICK_DISPATCH:
        yield
        return
    token = _pending.set([True])
    try:
        yield
    finally:
        _pending.reset(token)
