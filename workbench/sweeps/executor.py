"""Where a sweep's runs execute. `Executor` is the seam; `LocalExecutor` runs them as child
processes of this machine, `jobs` at once and the rest queued, within a budget of cost and tokens.
(A cluster executor takes the same runs and reports the same way.)
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from workbench.sweeps.record import Run
from workbench.sweeps.runs import Launch, run_one


@dataclass(frozen=True)
class Budget:
    """Spend limits over the whole sweep (None: no limit)."""

    max_cost: float | None = None
    max_tokens: int | None = None

    def reached(self, runs: list[Run]) -> str | None:
        """Why the sweep must stop, once its runs have spent the budget."""
        if self.max_tokens is not None:
            spent = sum(run.tokens.total for run in runs)
            if spent >= self.max_tokens:
                return f"--max-tokens {self.max_tokens} reached ({spent} tokens spent)"
        if self.max_cost is not None:
            cost = sum(run.cost or 0.0 for run in runs)
            if cost >= self.max_cost:
                return f"--max-cost {self.max_cost:g} reached (${cost:.4f} spent)"
        return None


Progress = Callable[[Run], None]


class Executor(Protocol):
    async def execute(
        self, work: list[tuple[Launch, Run]], budget: Budget, progress: Progress
    ) -> str | None:
        """Run `work` to its end; returns why runs were stopped early (None: they were not)."""
        ...


class LocalExecutor:
    """Children of this process, `jobs` at once. (`run` is the one thing a cluster executor
    changes: where a run executes; queueing, budgets and stopping stay as they are here.)"""

    def __init__(self, jobs: int) -> None:
        self.jobs = max(1, jobs)

    async def run(self, launch: Launch, run: Run, changed: Progress) -> None:
        """One run to its end; cancelled, it ends what it started and marks the run aborted."""
        await run_one(launch, run, changed)

    async def execute(
        self, work: list[tuple[Launch, Run]], budget: Budget, progress: Progress
    ) -> str | None:
        queue = list(work)
        running: dict[asyncio.Task[None], Run] = {}
        every = [run for _, run in work]
        stopped: str | None = None

        def changed(run: Run) -> None:
            nonlocal stopped
            progress(run)
            if stopped is None and (stopped := budget.reached(every)) is not None:
                for task in running:
                    task.cancel()

        try:
            while queue or running:
                while queue and stopped is None and len(running) < self.jobs:
                    launch, run = queue.pop(0)
                    running[asyncio.create_task(self.run(launch, run, changed))] = run
                if not running:
                    break
                done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    run = running.pop(task)
                    if not task.cancelled() and (error := task.exception()) is not None:
                        run.outcome, run.error = "failed", f"{type(error).__name__}: {error}"
                        progress(run)
        finally:
            for task in running:
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.gather(*running, return_exceptions=True)
        for _, run in queue:
            run.outcome = "aborted"
        return stopped
