"""Evals in `Workbench`: what `/eval SKILL` (the app, an editor) and `eval` (RPC) call.

    report = await wb.eval({"skill": "compound-ship-change", "repeat": 3, "enforcer": "off"})

An eval is a sweep (`workbench.evals`): it runs as the session's one running sweep
(`SweepControls.run`), so its progress is told by the sweep's events (`SweepStart`, one
`SweepProgress` whenever a run's row would read differently, `SweepEnd`) and Esc or
`stop_sweep` stops it. Once every run is graded, the report is kept as the skill's last eval
(the skill detail view shows it) and returned: its comparison is the command's result.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Any

from workbench.errors import UsageError, WorkbenchError

if TYPE_CHECKING:
    from workbench.agent.loop import Agent
    from workbench.evals.engine import Started
    from workbench.evals.results import EvalReport
    from workbench.runtime.options import WorkbenchOptions
    from workbench.runtime.sweep_controls import SweepControls
    from workbench.sweeps.executor import Progress
    from workbench.sweeps.record import Sweep


class EvalControls:
    """Runs a skill's eval in the open session; the agent gives the runs' default model and
    the box of their commands, as for a sweep."""

    def __init__(self, sweeps: SweepControls, options: WorkbenchOptions, agent: Agent) -> None:
        self._sweeps = sweeps
        self._options = options
        self._agent = agent

    async def eval(self, args: dict[str, Any]) -> EvalReport:
        """Run the eval `args` asks for (`skill`: a skill's name or folder; `repeat`, `jobs`,
        `grader`, `against`, `enforcer`, `catalog`, `ablate`, `yes`, `no_triggers`, `max_cost`,
        `max_tokens`, `timeout`, `check_timeout`, `sandbox`: the options of `workbench eval`)
        and return its report once every run is graded."""
        from workbench.evals.engine import finish_eval, plan, start_eval
        from workbench.evals.options import request_of, skill_named, to_ask, too_many
        from workbench.evals.saved import save_last
        from workbench.mcp.handed import handed_servers
        from workbench.sandbox import choose_sandbox
        from workbench.sweeps.executor import LocalExecutor

        session = self._sweeps.ready()
        name = str(args.get("skill") or "").strip()
        if not name:
            raise UsageError("an eval needs a skill", "for example: /eval compound-ship-change")
        options = self._options
        model = self._agent.state.model.info.name
        request = request_of(args, model, options.api_base, options.api_key)
        request.sandbox = self._agent.state.sandbox
        request.mcp_servers = handed_servers(options.mcp, options.mcp_config, options.mcp_servers)
        if args.get("sandbox"):
            request.sandbox = choose_sandbox(session.settings, str(args["sandbox"])).policy
        root = session.location.project_root
        skill = await asyncio.to_thread(skill_named, root, name)
        eval_plan = await asyncio.to_thread(plan, session, skill, request)
        if to_ask(eval_plan.total, args):  # no terminal to ask in: `yes` says it
            raise too_many(eval_plan.total)
        jobs = int(args.get("jobs") or os.cpu_count() or 1)
        started: list[Started] = []

        async def start() -> Sweep:
            started.append(await start_eval(session, eval_plan, request))
            return started[0].sweep

        async def finish(sweep: Sweep, progress: Progress) -> EvalReport:
            executor = LocalExecutor(jobs)
            return await finish_eval(session, eval_plan, request, started[0], executor, progress)

        _, report = await self._sweeps.run(jobs, start, finish)
        if report is None:
            raise WorkbenchError(
                f"the eval of {skill.name} was stopped; each run kept what it did",
                f"/sweep shows its runs; /eval {skill.name} runs it again",
            )
        await asyncio.to_thread(save_last, root, report)
        return report
