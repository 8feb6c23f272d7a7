"""One thread that runs all of a session's git work, one job at a time.

The event loop never blocks on git, and git work never interleaves: an append, a fork and a merge
of one session always run in the order they were asked for. A job whose caller was cancelled
still runs to its end, so an entry is either fully written or never started.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


class SerialWorker:
    """A single worker thread that async code awaits."""

    def __init__(self, name: str) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)

    async def run(self, job: Callable[[], T]) -> T:
        """Run `job` on the worker thread and wait for its result."""
        return await asyncio.shield(self.submit(job))

    def submit(self, job: Callable[[], T]) -> asyncio.Future[T]:
        """Queue `job` now, behind the jobs already asked for and ahead of those asked for
        after; its result, to await later or never (it runs to its end either way)."""
        return asyncio.wrap_future(self._executor.submit(job))

    def close(self) -> None:
        """Wait for queued jobs to finish, then stop the thread."""
        self._executor.shutdown(wait=True)
