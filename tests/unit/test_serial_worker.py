"""The session's git worker: jobs in the order they were asked for, never two at once."""

from __future__ import annotations

import asyncio
import threading

from workbench.agent.models import own_loop
from workbench.sessions.store.worker import SerialWorker


async def test_a_job_run_in_place_still_waits_for_the_jobs_queued_before_it() -> None:
    """In a run that owns its loop, an awaited job runs in place only when nothing is queued:
    a snapshot still being written comes first, and the two never run at once."""
    own_loop.claim()
    worker = SerialWorker("test-worker")
    order: list[str] = []
    release = threading.Event()

    def queued() -> None:
        release.wait()
        order.append("queued")

    earlier = worker.submit(queued)
    later = asyncio.ensure_future(worker.run(lambda: order.append("awaited")))
    await asyncio.sleep(0.05)
    assert order == [], "the awaited job ran while the one queued before it had not"
    release.set()
    await asyncio.gather(earlier, later)
    assert order == ["queued", "awaited"]
    assert await worker.run(lambda: threading.current_thread()) is threading.current_thread()
    worker.close()
