"""The `subagent` tool: hand focused work to child agents with a fresh context.

One mode per call (`request`): single, parallel (at most `max_concurrency` children
running at once) or chain (in order, `{previous}` becoming the previous step's answer, stopping
at the first failure). Agents come from `agent_files` in the call's `scope`; project agents run
only once the user has confirmed (or trusts the project). Children are separate `workbench`
processes (`run`); their progress streams into the call's updates; their answers, costs,
skill loads and violations come back in the result.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from workbench.agent.subagents.agent_files import AgentCatalog, AgentDef, discover_agents
from workbench.agent.subagents.report import ChildReport
from workbench.agent.subagents.request import PARAMETERS, PREVIOUS, requested
from workbench.agent.subagents.run import PROGRESS_INTERVAL_S, SUBAGENT_MARKER, Launch, run_child
from workbench.agent.subagents.settings import SubagentHost, SubagentSettings
from workbench.agent.subagents.text import progress, result_text
from workbench.config import find_project_root
from workbench.errors import WorkbenchError
from workbench.permission import NO, YES, PermissionRequest, always
from workbench.sandbox.policy import Mode, narrowest
from workbench.tool import Tool, ToolContext, ToolResult
from workbench.trust import covered_by_run, how_to_trust, session_worktree, trusted

SWITCH_OFF = "; or set subagents.confirm_project_agents to false in ~/.pi/agent/settings.json"
WORKTREE_SOURCE = "a session branch's worktree, whose files a pull may have brought"


def _unknown(name: str, catalog: AgentCatalog, cwd: Path) -> WorkbenchError:
    """An unknown name: list what there is, including project agents outside the scope."""
    hint = []
    if catalog.scope == "user":
        hidden = discover_agents(cwd, "project").agents
        if hidden:
            hint.append(f"project agents ({', '.join(hidden)}) need scope 'project' or 'both'")
    if catalog.problems:
        hint.append("skipped files: " + "; ".join(str(p) for p in catalog.problems))
    return WorkbenchError(
        f"unknown agent {name!r}; available (scope {catalog.scope}): {catalog.listing()}",
        "; ".join(hint) or None,
    )


async def _confirmed(
    agents: Sequence[AgentDef],
    catalog: AgentCatalog,
    host: SubagentHost,
    settings: SubagentSettings,
) -> str | None:
    """None when the project agents among `agents` may run; else why not."""
    project = sorted({a.name for a in agents if a.source == "project"})
    if not project or catalog.project_dir is None:
        return None
    root = catalog.project_dir.parents[1]
    if trusted(root, host.run_trust()):
        return None
    in_worktree = session_worktree(root)  # no setting spares the question there
    if not settings.confirm_project_agents and not in_worktree:
        return None
    names = ", ".join(project)
    if host.options.confirm is None:
        how = how_to_trust(root)
        return (
            f"project agents ({names}) from {catalog.project_dir} are code from this repository "
            f"and need the user's confirmation, which no one can give here. {how[0].upper()}"
            f"{how[1:]}{'' if in_worktree else SWITCH_OFF}."
        )
    source = WORKTREE_SOURCE if in_worktree else "this repository"
    question = (
        f"Run project agents {names} from {catalog.project_dir}?\n\nThey are defined by "
        f"{source}: only continue if you trust it."
    )
    if await host.options.confirm("Run project agents?", question):
        return None
    return f"the user declined to run the project agents {names}"


class Progress:
    """Streams the call's progress to `ctx.update`: at once when a child starts or ends, else at
    most every `PROGRESS_INTERVAL_S` (a change inside the interval is sent at its end)."""

    def __init__(self, ctx: ToolContext, mode: str, reports: list[ChildReport]) -> None:
        self.ctx, self.mode, self.reports = ctx, mode, reports
        self._last, self._statuses = 0.0, [r.status for r in reports]
        self._later: asyncio.TimerHandle | None = None

    def __call__(self) -> None:
        statuses = [r.status for r in self.reports]
        wait = self._last + PROGRESS_INTERVAL_S - time.monotonic()
        if statuses != self._statuses or wait <= 0:
            self._send()
        elif self._later is None:
            self._later = asyncio.get_running_loop().call_later(wait, self._send)

    def _send(self) -> None:
        self.close()
        self._last, self._statuses = time.monotonic(), [r.status for r in self.reports]
        self.ctx.update(progress(self.mode, self.reports))

    def close(self) -> None:
        """No more updates from this call (none may arrive after its result)."""
        if self._later is not None:
            self._later.cancel()
            self._later = None


class SubagentTool:
    """The tool for one session: its `execute` runs a call with what the session lends."""

    def __init__(self, host: SubagentHost) -> None:
        self.host = host

    def launch(self, agent: AgentDef, task: str, cwd: Path, sandbox: Mode = "off") -> Launch:
        """The child's launch; `sandbox`: the parent's mode, which the child can only narrow."""
        parent = self.host.model()
        model = agent.model or parent
        inherits = model == parent
        return Launch(
            agent=agent,
            task=task,
            cwd=cwd,
            model=model,
            env=dict(os.environ),
            api_base=self.host.options.api_base if inherits else None,
            api_key=self.host.options.api_key if inherits else None,
            trust=covered_by_run(find_project_root(cwd), self.host.run_trust()),
            no_cache=self.host.options.no_cache,
            mcp_servers=self.host.mcp_servers() if agent.mcp else None,
            sandbox=narrowest(sandbox, agent.sandbox),
        )

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        settings = SubagentSettings.load(ctx.cwd, self.host.run_trust())
        request = requested(args, ctx.cwd, settings)
        mode, items = request.mode, request.items
        catalog = discover_agents(ctx.cwd, request.scope)
        unknown = next((i.agent for i in items if i.agent not in catalog.agents), None)
        if unknown is not None:
            raise _unknown(unknown, catalog, ctx.cwd)
        agents = [catalog.agents[i.agent] for i in items]
        refusal = await _confirmed(agents, catalog, self.host, settings)
        if refusal is not None:
            return ToolResult(f"Not run: {refusal}", is_error=True)
        launches = [
            self.launch(a, i.task, i.cwd, ctx.sandbox.mode)
            for a, i in zip(agents, items, strict=True)
        ]
        reports = [
            ChildReport(
                agent=launch.agent.name,
                source=launch.agent.source,
                task=launch.task,
                step=number if mode == "chain" else None,
                model=launch.model,
                cwd=str(launch.cwd),
            )
            for number, launch in enumerate(launches, 1)
        ]
        changed = Progress(ctx, mode, reports)
        try:
            if mode == "chain":
                await self._chain(launches, reports, settings, changed)
            else:
                await self._parallel(launches, reports, settings, changed)
        finally:
            changed.close()
        details = {
            "subagent": {
                "mode": mode,
                "scope": request.scope,
                "results": [r.to_dict() for r in reports],
            }
        }
        failed = any(not r.ok for r in reports)
        return ToolResult(result_text(mode, reports, settings.max_result_chars), failed, details)

    async def _parallel(
        self,
        launches: list[Launch],
        reports: list[ChildReport],
        settings: SubagentSettings,
        changed: Progress,
    ) -> None:
        slots = asyncio.Semaphore(settings.max_concurrency)

        async def one(launch: Launch, report: ChildReport) -> None:
            async with slots:
                await run_child(launch, report, settings.timeout_seconds, changed)

        async with asyncio.TaskGroup() as group:
            for launch, report in zip(launches, reports, strict=True):
                group.create_task(one(launch, report))

    async def _chain(
        self,
        launches: list[Launch],
        reports: list[ChildReport],
        settings: SubagentSettings,
        changed: Progress,
    ) -> None:
        previous = ""
        for launch, report in zip(launches, reports, strict=True):
            launch.task = report.task = launch.task.replace(PREVIOUS, previous)
            await run_child(launch, report, settings.timeout_seconds, changed)
            if not report.ok:
                return
            previous = report.answer


def _description(catalog: AgentCatalog) -> str:
    listed = "; ".join(f"{a.name} ({a.source}): {a.description}" for a in catalog.agents.values())
    return (
        "Delegate focused work to specialised agents, each a separate process with a fresh "
        "context. Modes: single {agent, task}; parallel {tasks: [...]} for independent work; "
        "chain {chain: [...]} for steps in order, where {previous} in a task is the previous "
        "step's answer. You get each agent's final answer, cost and skill loads. "
        f"Agents: {listed or 'none yet'}. Project agents need scope 'project' or 'both'."
    )


def subagent_tools(host: SubagentHost, cwd: Path) -> list[Tool]:
    """The `subagent` tool when any agent definition exists (valid or not: a broken file is then
    reported when it is called); none inside a child, so children cannot fan out further."""
    if SUBAGENT_MARKER in os.environ:
        return []
    catalog = discover_agents(cwd, "both")
    if not catalog.agents and not catalog.problems:
        return []
    tool = SubagentTool(host)
    return [Tool("subagent", _description(catalog), PARAMETERS, tool.execute, _describe)]


def _describe(args: dict[str, Any], ctx: ToolContext) -> PermissionRequest:
    """Starting sub-agents, for the user's approval (`approval: all`): they run headless, so
    their own edits and commands are not asked about."""
    detail = json.dumps(args, indent=2, ensure_ascii=False)
    options = (YES, NO, always("commands"))
    title = "Start sub-agents"
    return PermissionRequest("command", "subagent", title, detail, options, ctx.tool_call_id)
