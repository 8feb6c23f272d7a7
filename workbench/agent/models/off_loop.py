"""Run an async iterator on a background event loop and relay its items to the caller's loop.

A streamed reply costs Python work per chunk (litellm builds pydantic objects for each one).
When the network delivers many chunks at once, iterating them never suspends, and on the app's
event loop that work would hold keystrokes for a few hundred milliseconds. On the background
loop's thread the same work only shares the interpreter lock. Shared evenly, though, it would
make every step of the caller's loop (laying out and drawing the screen) take twice as long
while a reply streams; so after each `BUSY_S` of work the producer posts a callback to the
caller's loop, and when the last one has still not run, waits for it: a step of the caller's
loop under way runs to its end with the lock to itself (but for at most two `BUSY_S`), and the
producer works in the caller's idle time (the interpreter runs one thread at a time either
way, so the reply is not read slower in all).

Items are handed over in batches, one wake-up of the caller's loop for all that arrived since
the last: a wake-up per item would have the caller's loop, in its own wake-up handling, wait for
the interpreter lock once per item while this thread keeps writing. One background loop serves
the whole process (a forked child starts its own). Items, the end and any exception reach the
caller in order; when the caller stops early or is cancelled, the producer is cancelled on its
loop and waited for, so its `finally` blocks (closing the HTTP response) have run before the
caller goes on.

A run that has its event loop to itself (`-p`, JSON mode: `own_loop`) reads its streams on that
loop instead: each hand-over between the threads is a wake-up, which on a busy machine waits for
a core.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import TypeVar

from workbench.agent.models import own_loop
from workbench.agent.models.dispatch import DispatchExecutor

T = TypeVar("T")

BUSY_S = 0.004
"""The producer's work between two waits for the caller's loop (under the interpreter's switch
interval, 5 ms: the caller's thread waits for the lock no longer than that)."""
LONGEST_WAIT_S = 0.5
"""A caller's loop that never answers (closed under the producer) holds it no longer than this."""


class _Signal:
    """Not an item: the producer ended (`_END`), or its task is done (`_CLOSED`)."""


_END, _CLOSED = _Signal(), _Signal()
_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_loop_pid = 0


def background_loop() -> asyncio.AbstractEventLoop:
    """This process's background event loop, started on first use (again in a forked child)."""
    global _loop, _loop_pid
    with _lock:
        if _loop is None or _loop_pid != os.getpid():
            _loop, _loop_pid = asyncio.new_event_loop(), os.getpid()
            _loop.set_default_executor(DispatchExecutor(thread_name_prefix="workbench-stream"))
            threading.Thread(
                target=_loop.run_forever, name="workbench-stream-loop", daemon=True
            ).start()
        return _loop


class _Ping:
    """A callback posted to the caller's loop; the producer waits for it only when it is still
    not run after another `BUSY_S` of work, that is, while a step of the caller's loop runs:
    a caller that answers at once is never waited for, and never woken for nothing."""

    def __init__(self, background: asyncio.AbstractEventLoop) -> None:
        self._background = background
        self._guard = threading.Lock()
        self._run = False
        self._waiter: asyncio.Future[None] | None = None

    @classmethod
    def post(
        cls, caller: asyncio.AbstractEventLoop, background: asyncio.AbstractEventLoop
    ) -> _Ping | None:
        """A ping posted to `caller`'s loop, or None when that loop is closed."""
        ping = cls(background)
        try:
            caller.call_soon_threadsafe(ping._answer)
        except RuntimeError:
            return None
        return ping

    def _answer(self) -> None:
        with self._guard:
            self._run = True
            waiter = self._waiter
        if waiter is not None:
            with contextlib.suppress(RuntimeError):  # the background loop is closed
                self._background.call_soon_threadsafe(_resolve, waiter)

    async def answered(self) -> None:
        """Until the caller's loop has run the ping (`LONGEST_WAIT_S` at most)."""
        with self._guard:
            if self._run:
                return
            self._waiter = waiter = self._background.create_future()
        # Not `wait_for`: in 3.11 it returns instead of raising when cancelled as the answer comes.
        await asyncio.wait({waiter}, timeout=LONGEST_WAIT_S)


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():  # cancelled, or given up waiting for
        future.set_result(None)


def relayed(produce: Callable[[], AsyncIterator[T]]) -> AsyncGenerator[T, None]:
    """The items of `produce()`, iterated on the background loop, in order (on the running
    loop when the run owns it: `own_loop`)."""
    return _here_items(produce) if own_loop.owned() else _relayed(produce)


async def _here_items(produce: Callable[[], AsyncIterator[T]]) -> AsyncGenerator[T, None]:
    """The items of `produce()` on this loop; closed when the caller stops early too."""
    items = produce()
    try:
        async for item in items:
            yield item
    finally:
        await _closed(items)


async def _closed(items: AsyncIterator[T]) -> None:
    """Close `items` (its `finally` blocks run now, not when it is collected), if it can be."""
    close = getattr(items, "aclose", None)
    if close is not None:
        await close()


async def _relayed(produce: Callable[[], AsyncIterator[T]]) -> AsyncGenerator[T, None]:
    here = asyncio.get_running_loop()
    inbox: asyncio.Queue[T | Exception | _Signal] = asyncio.Queue()
    waiting: list[T | Exception | _Signal] = []
    guard = threading.Lock()

    def hand_over() -> None:
        with guard:
            items = waiting.copy()
            waiting.clear()
        for item in items:
            inbox.put_nowait(item)

    def deliver(item: T | Exception | _Signal) -> None:
        with guard:
            waiting.append(item)
            if len(waiting) > 1:  # a hand-over is on its way already
                return
        with contextlib.suppress(RuntimeError):  # raised when the caller's loop is closed
            here.call_soon_threadsafe(hand_over)

    async def pump() -> None:
        items = produce()
        try:
            busy_since = time.thread_time()
            ping: _Ping | None = None
            async for item in items:
                deliver(item)
                if time.thread_time() - busy_since > BUSY_S:
                    if ping is not None:
                        await ping.answered()  # cancelled here too: `items` closed below
                    ping = _Ping.post(here, background)
                    busy_since = time.thread_time()
            deliver(_END)
        except Exception as exc:
            deliver(exc)
        finally:
            await _closed(items)

    background = background_loop()
    task: asyncio.Task[None] | None = None

    def begin() -> None:
        nonlocal task
        task = background.create_task(pump())
        task.add_done_callback(lambda _: deliver(_CLOSED))  # also when cancelled before it ran

    def cancel() -> None:
        if task is not None:  # `begin` ran first: both go through the same loop, in order
            task.cancel()

    background.call_soon_threadsafe(begin)
    item: T | Exception | _Signal | None = None
    try:
        while not isinstance(item := await inbox.get(), _Signal):  # the end, after every item
            if isinstance(item, Exception):
                raise item
            yield item
    finally:
        background.call_soon_threadsafe(cancel)  # nothing when it has finished
        while item is not _CLOSED:
            item = await inbox.get()
