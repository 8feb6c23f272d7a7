"""Sweeps in `Workbench`: what `/sweep` (the app, an editor) and `sweep` (RPC) call.

    sweep = await wb.sweep({"prompt": "fix it", "variants": ["model=a", "model=b"]})
    await wb.stop_sweep()      # every run ends and keeps what it did; `sweep` returns then
    wb.sweeps()                # the session's sweeps, oldest first

A sweep starts from the session's current position, forks its branches as `workbench sweep`
does, and runs them as child processes (`workbench.sweeps`) while the session stays open for the
user: the sweep's runs write on their own branches only. Its progress is told as events
(`SweepStart`, one `SweepProgress` whenever a run's row would read differently, `SweepEnd`), so
every front end renders the same thing. One sweep runs at a time per session.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from workbench.agent.events import TreeUpdate
from workbench.errors import UsageError, WorkbenchError
from workbench.sweeps.events import SweepEnd, SweepProgress, SweepStart

if TYPE_CHECKING:
    from workbench.agent.loop import Agent
    from workbench.runtime.current import Current
    from workbench.runtime.events import WorkbenchEvent
    from workbench.runtime.options import WorkbenchOptions
    from workbench.sessions.session import Session
    from workbench.sweeps.executor import Progress
    from workbench.sweeps.record import Run, Sweep

T = TypeVar("T")
TICK_S = 1.0
"""A running run's row is told again at most this often when only its seconds moved."""


class SweepControls:
    """Starts, follows and stops the session's sweep (`current.session`: `resume` may replace
    it); the agent says whether it works and which model the variants default to."""

    def __init__(
        self,
        current: Current,
        options: WorkbenchOptions,
        emit: Callable[[WorkbenchEvent], None],
        agent: Agent,
        tree_lock: asyncio.Lock,
    ) -> None:
        self._current = current
        self._options = options
        self._emit = emit
        self._agent = agent
        self._tree_lock = tree_lock
        self._running: asyncio.Task[Any] | None = None
        self._following: set[asyncio.Task[None]] = set()

    def ready(self) -> Session:
        """The session a sweep (or an eval) starts in now, or why none can."""
        if self._current.session is None:
            raise UsageError(
                "a sweep needs a stored session; this one is kept in memory only",
                "start workbench without --no-session",
            )
        if self._running is not None:
            raise WorkbenchError(
                "a sweep is already running in this session",
                "/sweep shows it; Esc in its view (or stop_sweep) stops it",
            )
        if self._agent.busy:
            raise WorkbenchError(
                "the agent is working: a sweep starts from where the conversation rests",
                "wait for the reply (or Esc), then /sweep again",
            )
        return self._current.session

    def sweeps(self) -> list[Sweep]:
        """The session's sweeps, oldest first (none without a stored session)."""
        from workbench.sweeps.engine import sweeps_of

        return sweeps_of(self._current.session) if self._current.session is not None else []

    async def sweep(self, args: dict[str, Any]) -> Sweep:
        """Run the sweep `args` asks for (`prompt`, `variants`, `repeat`, `jobs`, `check`,
        `check_timeout`, `timeout`, `max_cost`, `max_tokens`, `at`: the options of `workbench
        sweep`) from the current position, or only what sweep `resume` is missing, and return it
        once every run ended or was stopped. The variants' model defaults to the session's."""
        from workbench.mcp.handed import handed_servers
        from workbench.sandbox import choose_sandbox
        from workbench.sweeps.engine import find_sweep, run_sweep, start_sweep
        from workbench.sweeps.executor import LocalExecutor
        from workbench.sweeps.options import request_of

        session = self.ready()
        options = self._options
        model = self._agent.state.model.info.name
        request = request_of(args, "", model, options.api_base, options.api_key)
        request.prompt = str(args.get("prompt") or "").strip()
        box = self._agent.state.sandbox  # the runs' commands get the session's box ...
        if args.get("sandbox"):  # ... or the one the user names for this sweep
            box = choose_sandbox(session.settings, str(args["sandbox"])).policy
        request.sandbox = box
        request.mcp_servers = handed_servers(options.mcp, options.mcp_config, options.mcp_servers)
        resume = str(args.get("resume") or "")
        if resume and (request.prompt or args.get("variants")):
            raise UsageError(
                "--resume runs a recorded sweep as it was asked: no question or variants",
                f"/sweep --resume {resume}",
            )
        if not resume and not request.prompt and not all(v.prompt for v in request.variants):
            raise UsageError("a sweep needs a question", "for example: /sweep -- fix the bug")
        jobs = int(args.get("jobs") or os.cpu_count() or 1)

        async def start() -> Sweep:
            if resume:
                return await session.store.run(lambda: find_sweep(session, resume))
            return await start_sweep(session, request)

        async def finish(sweep: Sweep, progress: Progress) -> Sweep:
            return await run_sweep(session, sweep, request, LocalExecutor(jobs), progress)

        sweep, _ = await self.run(jobs, start, finish)
        return sweep

    async def run(
        self,
        jobs: int,
        start: Callable[[], Awaitable[Sweep]],
        finish: Callable[[Sweep, Progress], Coroutine[Any, Any, T]],
    ) -> tuple[Sweep, T | None]:
        """Start a sweep (`start`: its branches forked) and `finish` it (its runs, and what
        follows them: an eval's grading) as the session's one running sweep, told as events;
        the sweep as it ended and what `finish` returned (None: it was stopped)."""
        session = self.ready()
        async with self._tree_lock:
            sweep = await start()
        position = session.store.state.position
        self._emit(TreeUpdate("fork", position.branch, position.entry))
        self._emit(SweepStart(sweep.to_record(), jobs))
        told = Told(sweep.id, self._emit, lambda branch: self._follow(session, branch))
        self._running = asyncio.create_task(finish(sweep, told.progress))
        try:
            await asyncio.wait({self._running})
        finally:
            task, self._running = self._running, None
            if not task.done():  # the caller itself was cancelled: so is the sweep
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        result: T | None = None if task.cancelled() else task.result()
        await asyncio.gather(*self._following)
        self._emit(SweepEnd(sweep.id, sweep.to_json(), sweep.stopped))
        return sweep, result

    def _follow(self, session: Session, branch: str) -> None:
        """A run ended: its branch's entries, written by its process, are read from now on."""
        task = asyncio.create_task(session.store.run(lambda: session.store.follow_heads([branch])))
        self._following.add(task)
        task.add_done_callback(self._following.discard)

    async def stop_sweep(self) -> bool:
        """Stop every run of the running sweep (each keeps its entries and files) and wait until
        the sweep is recorded; False when no sweep runs."""
        task = self._running
        if task is None:
            return False
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait({task})
        return True


class Told:
    """A sweep's progress as events: a run is told when its row would read differently (its
    outcome, tool, tokens, cost or check), or when its seconds moved by `TICK_S`; `ended` hears
    of each run that ended, before it is told."""

    def __init__(
        self, sweep: str, emit: Callable[[WorkbenchEvent], None], ended: Callable[[str], None]
    ) -> None:
        self.sweep = sweep
        self.emit = emit
        self.ended = ended
        self.last: dict[str, tuple[object, ...]] = {}
        self.when: dict[str, float] = {}

    def progress(self, run: Run) -> None:
        shown = (run.outcome, run.tool, run.tokens.total, run.cost, run.check, run.tool_calls)
        now = time.monotonic()
        before = self.last.get(run.branch)
        if before == shown and now - self.when.get(run.branch, 0.0) < TICK_S:
            return
        self.last[run.branch], self.when[run.branch] = shown, now
        if run.outcome not in ("queued", "running") and (
            before is None or before[0] != run.outcome
        ):
            self.ended(run.branch)
        self.emit(SweepProgress(self.sweep, run.to_json(), run.tool))
