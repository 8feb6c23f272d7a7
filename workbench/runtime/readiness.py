"""The current branch's workspace, made ready in the background after a branch change.

A fork records its conversation branch at once; checking out its worktree (most of a fork's
time) runs afterwards on the session's git worker, in order with every other git job, so status,
commit and merge on that branch already wait for it there. What waits here is the runtime's own
move to the workspace (tools' folder, system prompt, skills) and every run: a run never starts in
the wrong folder. A failure is reported as soon as it happens; the next run tries again and, if
it fails again, refuses with the error.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from typing import Any

Job = Callable[[], Coroutine[Any, Any, None]]


class Readiness:
    """One background job at a time: the latest branch change's move to its workspace."""

    def __init__(self, report: Callable[[BaseException], None]) -> None:
        self._report = report
        self._job: Job | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self, job: Job) -> None:
        """Run `job` in the background (the previous one must have settled)."""
        self._job = job
        self._task = asyncio.create_task(job(), name="workspace-ready")
        self._task.add_done_callback(self._reported)

    def _reported(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and (error := task.exception()) is not None:
            self._report(error)

    async def settled(self) -> None:
        """Wait until the job has finished, however it finished (before the next change)."""
        if self._task is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):  # reported already
                await asyncio.shield(self._task)

    async def wait(self) -> None:
        """Wait until the workspace is ready; after a failure, try once more and raise its error."""
        task = self._task
        if task is None or self._job is None:
            return
        if task.done() and (task.cancelled() or task.exception() is not None):
            task = self._task = asyncio.create_task(self._job(), name="workspace-ready")
        await asyncio.shield(task)
        self._task = None

    def cancel(self) -> None:
        """Stop waiting (on close); git work already handed to the worker still finishes."""
        if self._task is not None:
            self._task.cancel()
