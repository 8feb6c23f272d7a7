"""A reply read on the background loop: the caller's loop stays free, nothing is lost or left
open, whatever way the reading ends."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator

import pytest

from workbench.agent.models import own_loop
from workbench.agent.models.off_loop import BUSY_S, relayed


async def test_a_long_step_of_the_producer_does_not_hold_the_callers_loop() -> None:
    async def produce() -> AsyncIterator[int]:
        yield 1
        time.sleep(0.3)  # litellm putting a whole reply together at its end, in one call
        yield 2

    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.01)

    ticking = asyncio.create_task(tick())
    items = [item async for item in relayed(produce)]
    ticking.cancel()
    assert items == [1, 2]
    assert ticks >= 15  # the caller's loop ran on through the 0.3 s step (30 ticks at most)


async def test_the_producer_waits_while_a_step_of_the_callers_loop_runs() -> None:
    """A step of the app's loop (laying out the screen) does not share the interpreter with
    litellm's per-chunk work: the producer stops within two `BUSY_S` of work until it ends."""
    produced = 0

    async def produce() -> AsyncIterator[int]:
        nonlocal produced
        for i in range(100_000):
            spent = time.thread_time()
            while time.thread_time() - spent < 0.001:  # a chunk's parsing: 1 ms of work
                pass
            produced += 1
            yield i

    stream = relayed(produce)
    await anext(stream)
    before = produced
    time.sleep(0.3)  # one long step of the caller's loop
    during = produced - before
    await stream.aclose()
    assert during <= 3 * BUSY_S / 0.001  # 300 without the wait, on a free core


async def test_items_keep_their_order_and_an_error_reaches_the_caller() -> None:
    async def produce() -> AsyncIterator[int]:
        for i in range(500):
            yield i
        raise ValueError("cut off after 500")

    got: list[int] = []
    with pytest.raises(ValueError, match="cut off after 500"):
        async for item in relayed(produce):
            got.append(item)
    assert got == list(range(500))


async def test_a_cancelled_caller_waits_until_the_producer_has_closed() -> None:
    closed = threading.Event()
    started = asyncio.Event()

    async def produce() -> AsyncIterator[str]:
        try:
            yield "first"
            await asyncio.sleep(60)  # a model that goes quiet
            yield "never"
        finally:
            await asyncio.sleep(0.05)  # closing the HTTP response takes a moment
            closed.set()

    async def read() -> None:
        async for _ in relayed(produce):
            started.set()

    reading = asyncio.create_task(read())
    await started.wait()
    reading.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reading
    assert closed.is_set()


async def test_a_caller_that_stops_early_closes_the_producer() -> None:
    closed = threading.Event()

    async def produce() -> AsyncIterator[int]:
        try:
            for i in range(1000):
                yield i
                await asyncio.sleep(0)
        finally:
            closed.set()

    stream = relayed(produce)
    async for item in stream:
        if item == 3:
            break
    await stream.aclose()
    assert closed.is_set()


async def test_a_caller_that_stops_while_the_producer_waits_for_it_closes_the_producer() -> None:
    """Esc while the app's loop is busy: the producer is cancelled as it waits for the caller's
    loop, and its `finally` (closing the HTTP response) has run when the caller goes on."""
    closed = threading.Event()

    async def produce() -> AsyncIterator[int]:
        try:
            for i in range(1000):
                end = time.thread_time() + 2 * BUSY_S
                while time.thread_time() < end:  # litellm's work for a chunk
                    pass
                yield i
        finally:
            closed.set()

    stream = relayed(produce)
    async for _ in stream:
        time.sleep(0.2)  # a long step of the caller's loop: the producer waits for it
        break
    await stream.aclose()
    assert closed.is_set()


async def test_a_run_with_the_loop_to_itself_reads_on_it_and_still_closes_early() -> None:
    """A run that owns its loop (`-p`, JSON): items are made on the caller's own thread, no
    hand-over to the background loop, and a caller that stops early still closes the producer."""
    threads: list[threading.Thread] = []
    closed = threading.Event()

    async def produce() -> AsyncIterator[int]:
        try:
            for i in range(10):
                threads.append(threading.current_thread())
                yield i
        finally:
            closed.set()

    own_loop.claim()
    stream = relayed(produce)
    async for item in stream:
        if item == 2:
            break
    await stream.aclose()
    assert threads == [threading.current_thread()] * 3
    assert closed.is_set()
