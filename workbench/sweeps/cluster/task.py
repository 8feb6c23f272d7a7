"""What one Ray task does on its worker: pull the session, run the branch with the same child
runner as a local sweep (`runs.run_one`), send the branch back; the run's figures are yielded as
they change (a streaming task), the last one final.

It runs in a folder of its own under the worker's temporary folder, whatever the worker's
working folder and HOME are, and removes it at the end. The model's key is never sent: the child
finds it in the worker's environment. A Ray cancel (KeyboardInterrupt here) ends the child as a
local Ctrl+C does, and what the run did is still sent back.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import queue
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.agent.models.rate_gate import RateGate
from workbench.processes.child import GRACE_S
from workbench.sessions.store.identity import Identity
from workbench.sweeps.cluster.gate import Mirror
from workbench.sweeps.cluster.transport import check_out, send_back
from workbench.sweeps.record import Run
from workbench.sweeps.runs import Launch, run_one

REPORT_EVERY_S = 1.0
"""How often a running run's figures are sent to the driver at most (a new outcome at once)."""
SEND_BACK_S = 120.0


@dataclass(frozen=True)
class TaskSpec:
    """What the driver sends one task: never a key, never a path of the driver's."""

    remote: str
    launch: Launch
    run: dict[str, Any]
    gate: str
    """The name of the sweep's rate gate folder (the runs on one node share it) and of its
    keeper (the nodes share that: `gate`)."""
    who: Identity


def run_task(spec: TaskSpec) -> Iterator[dict[str, Any]]:
    """The Ray task: the run's figures (`Run.to_json`) as they change, the last one final."""
    import ray  # in a Ray task: Ray is there

    updates: queue.Queue[dict[str, Any] | BaseException | None] = queue.Queue()
    worker = _Worker(spec, updates)
    mirror = Mirror(ray, RateGate(gate_folder(spec)), ray.get_actor(spec.gate))
    worker.start()
    mirror.start()
    try:
        while (item := _next(updates)) is not None:
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        worker.stop()
        mirror.stop()


def gate_folder(spec: TaskSpec) -> Path:
    """The node's gate folder of the sweep: its runs on this node share it."""
    return Path(tempfile.gettempdir()) / spec.gate


def _next(updates: queue.Queue[dict[str, Any] | BaseException | None]) -> Any:
    """The next update, waiting in short steps so that a cancel (KeyboardInterrupt) gets in."""
    while True:
        try:
            return updates.get(timeout=0.2)
        except queue.Empty:
            continue


class _Worker:
    """The run on an event loop of its own thread; `stop` cancels it and waits for the child
    to be gone and the branch sent back."""

    def __init__(
        self, spec: TaskSpec, updates: queue.Queue[dict[str, Any] | BaseException | None]
    ) -> None:
        self.spec = spec
        self.updates = updates
        self.loop: asyncio.AbstractEventLoop | None = None
        self.task: asyncio.Task[None] | None = None
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._main, name="workbench-sweep-run", daemon=True)

    def start(self) -> None:
        self.thread.start()
        self.ready.wait()

    def stop(self) -> None:
        if self.loop is not None and self.task is not None and not self.task.done():
            self.loop.call_soon_threadsafe(self.task.cancel)
        self.thread.join(GRACE_S + SEND_BACK_S)

    def _main(self) -> None:
        asyncio.run(self._guarded())

    async def _guarded(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.task = asyncio.current_task()
        self.ready.set()
        try:
            await self._run()
        except BaseException as exc:  # a failure travels to the driver as the task's error
            self.updates.put(exc if isinstance(exc, Exception) else None)
            return
        self.updates.put(None)

    async def _run(self) -> None:
        spec = self.spec
        run = Run.from_json(spec.run)
        launch = spec.launch
        folder = Path(tempfile.mkdtemp(prefix="workbench-ray-"))
        sent_at, sent_outcome = 0.0, ""

        def changed(changed_run: Run) -> None:
            nonlocal sent_at, sent_outcome
            now = time.monotonic()
            if changed_run.outcome != sent_outcome or now - sent_at >= REPORT_EVERY_S:
                sent_at, sent_outcome = now, changed_run.outcome
                self.updates.put(changed_run.to_json())

        try:
            worktree = await asyncio.to_thread(
                check_out, spec.remote, launch.session, launch.branch, folder, spec.who
            )
            here = dataclasses.replace(
                launch,
                worktree=worktree,
                gate=gate_folder(spec),
                api_key=None,
            )
            # Cancelled, the child has ended; what it did is sent back all the same.
            with contextlib.suppress(asyncio.CancelledError):
                await run_one(here, run, changed)
            message = f"{launch.branch}: the files of sweep run {run.variant} {run.repeat}"
            await asyncio.wait_for(
                send_back(folder, spec.remote, launch.session, launch.branch, message),
                SEND_BACK_S,
            )
            self.updates.put(run.to_json())
        finally:
            shutil.rmtree(folder, ignore_errors=True)
