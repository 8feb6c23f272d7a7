"""Steps of the loop that an abort must not split.

An abort is asyncio cancellation of the run. Some steps belong together in the log: an entry and
the loop's own list of messages; the results of every tool call of a recorded reply (the model's
API refuses a call without one); a batch of queued user messages taken from their queue (they
exist nowhere else). Such a step runs to its end in a task of its own; the abort goes on after.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


async def run_to_end(step: Awaitable[T]) -> T:
    """Await `step` to its end even when the caller is cancelled meanwhile; then the
    cancellation goes on."""
    task = asyncio.ensure_future(step)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        await task
        raise
