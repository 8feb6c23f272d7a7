"""One thread that runs all of a session's git work, one job at a time.

The event loop never blocks on git, and git work never interleaves: an append, a fork and a merge
of one session always run in the order they were asked for. A job whose caller was cancelled
still runs to its end, so an entry is either fully written or never started.

The thread (and asyncio, and `concurrent.futures`) come with the first job: a command-line
command that works on the session without an event loop (`workbench fork`) pays for none of it.

A run that owns its event loop (`-p`, JSON: `agent.models.own_loop`) has nothing to keep free:
an awaited job with none queued before it runs in place, on the loop's thread, without two
wake-ups of the worker (appends on the path from a tool's result to the next request). Jobs
still never interleave: the worker runs each of its jobs, and an in-place job, under one lock.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

T = TypeVar("T")


class SerialWorker:
    """A single worker thread that async code awaits."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._executor: ThreadPoolExecutor | None = None
        self._closed = False
        self._starting = threading.Lock()
        self._queued = 0
        """Jobs submitted and not yet finished."""
        self._turn = threading.Lock()
        """Held by whichever job runs, on the worker or in place."""

    async def run(self, job: Callable[[], T]) -> T:
        """Run `job` on the worker thread and wait for its result (in place, when the run owns
        its loop and no job waits before it)."""
        import asyncio

        from workbench.agent.models import own_loop

        if own_loop.owned() and self._take_turn():
            try:
                return job()
            finally:
                self._turn.release()
        return await asyncio.shield(self.submit(job))

    def _take_turn(self) -> bool:
        """The turn, taken now for a job run in place; False when a queued job comes first."""
        with self._starting:
            if self._closed:
                raise RuntimeError("cannot schedule new futures after shutdown")
            return self._queued == 0 and self._turn.acquire(blocking=False)

    def _in_turn(self, job: Callable[[], T]) -> T:
        """A submitted job, as the worker runs it."""
        try:
            with self._turn:
                return job()
        finally:
            with self._starting:
                self._queued -= 1

    def submit(self, job: Callable[[], T]) -> asyncio.Future[T]:
        """Queue `job` now, behind the jobs already asked for and ahead of those asked for
        after; its result, to await later or never (it runs to its end either way)."""
        import asyncio
        from concurrent.futures import ThreadPoolExecutor

        with self._starting:  # one thread, whichever thread asks first
            if self._closed:
                raise RuntimeError("cannot schedule new futures after shutdown")
            if self._executor is None:
                self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=self._name)
            future = self._executor.submit(self._in_turn, job)
            self._queued += 1
        return asyncio.wrap_future(future)

    def close(self) -> None:
        """Wait for queued jobs to finish, then stop the thread."""
        with self._starting:
            self._closed = True
            executor = self._executor
        if executor is not None:
            executor.shutdown(wait=True)
