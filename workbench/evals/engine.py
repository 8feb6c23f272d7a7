"""One skill's eval as one sweep: each case × configuration a variant, `--repeat` runs of each,
then every run graded and measured.

The sweep engine forks the branches and runs the children; between the fork and the run, each
worktree is made ready (`workspace.prepare`: the skill as on disk, an old version, or none; the
case's files). Trigger queries ride in the same sweep, so `--jobs` spans them all. After the runs,
each one's entries give its answer and its uptake, its checks run in its worktree, and the
grader model judges its assertions.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.agent.models.choice import model_name, open_model
from workbench.agent.models.client import ModelClient
from workbench.agent.store import Entry, messages_of
from workbench.errors import UsageError
from workbench.evals.configurations import Configuration, configurations
from workbench.evals.grading import grade_assertion, run_checks
from workbench.evals.results import EvalReport, EvalRun
from workbench.evals.triggers import trigger_summary
from workbench.evals.uptake import uptake_of
from workbench.evals.workspace import changed_since, commit_prepared, folder_in_project, prepare
from workbench.sandbox import SandboxPolicy
from workbench.sessions.session import Session
from workbench.sessions.store.refs import branch_ref
from workbench.skills.discover import load_project_skills
from workbench.skills.evals_file import (
    EvalCase,
    Trigger,
    problem_text,
    read_evals,
    read_triggers,
)
from workbench.skills.graph import SkillGraph
from workbench.skills.model import Skill
from workbench.sweeps.engine import SweepRequest, run_sweep, start_sweep
from workbench.sweeps.executor import Budget, Executor, Progress
from workbench.sweeps.record import Run, Sweep
from workbench.sweeps.variants import Variant

SLUG = re.compile(r"[^A-Za-z0-9._-]+")
OUTPUT_KEPT = 4000
"""Characters of each run's final answer kept in the report (its end)."""


@dataclass
class EvalRequest:
    """What `workbench eval` was asked (besides the skill)."""

    repeat: int = 3
    model: str | None = None
    api_base: str | None = None
    api_key: str | None = None
    grader: str | None = None
    against: Path | None = None
    enforcer: list[str] = field(default_factory=list)
    catalog: str | None = None
    ablate: bool = False
    triggers: bool = True
    budget: Budget = field(default_factory=Budget)
    check_timeout_s: float = 600.0
    timeout_s: float | None = None
    sandbox: SandboxPolicy = field(default_factory=SandboxPolicy)
    """The box of the runs' commands and of the case's checks, as for a sweep."""
    mcp_servers: dict[str, Any] | None = field(default_factory=dict)
    """The MCP servers the session hands its runs, as for a sweep."""


@dataclass(frozen=True)
class Planned:
    """What one variant of the eval's sweep stands for: a case under a configuration, or a
    trigger query (under `with_skill`)."""

    configuration: Configuration
    case: EvalCase | None = None
    trigger: Trigger | None = None


@dataclass
class Plan:
    """The eval's sweep before it starts: its variants and what each stands for."""

    skill: Skill
    graph: SkillGraph
    cases: list[EvalCase]
    configurations: list[Configuration]
    triggers: list[Trigger]
    variants: list[tuple[Variant, Planned]]
    repeat: int

    @property
    def total(self) -> int:
        return len(self.variants) * self.repeat

    def planned(self, variant: str) -> Planned:
        return next(p for v, p in self.variants if v.name == variant)


def _slug(text: str) -> str:
    return SLUG.sub("-", text).strip("-.")[:20] or "case"


def plan(session: Session, skill: Skill, request: EvalRequest) -> Plan:
    """The configurations and variants of one skill's eval; what is wrong is a UsageError now."""
    if request.repeat < 1:
        raise UsageError("--repeat takes a count of 1 or more")
    cases, problems = read_evals(skill)
    triggers, trigger_problems = read_triggers(skill) if request.triggers else ([], [])
    problems += trigger_problems
    if problems:
        raise UsageError(
            f"{skill.name}: its evals are not valid:\n"
            + "\n".join(f"  {problem_text(p)}" for p in problems),
            "`workbench lint` shows the same; docs/evals.md has the shape",
        )
    if not cases and not triggers:
        raise UsageError(f"{skill.name} has no cases in evals/evals.json", None)
    root = session.location.project_root
    folder_in_project(skill, root)
    graph = load_project_skills(root).graph
    if graph.get(skill.name) is None:
        raise UsageError(
            f"the project does not offer {skill.name} to its sessions",
            "add the skill's parent folder to skills.paths in .pi/settings.json",
        )
    chosen = configurations(
        skill,
        graph,
        against=request.against,
        enforcer=request.enforcer,
        catalog=request.catalog,
        ablate=request.ablate,
    )
    names = sorted(graph.skills)
    variants: list[tuple[Variant, Planned]] = []

    def add(name: str, planned: Planned, prompt: str) -> None:
        removed = planned.configuration.removed
        kept = [n for n in names if n not in removed] if removed else None
        settings = dict(planned.configuration.settings)
        variant = Variant(name, name, prompt=prompt, settings=settings, skills=kept)
        variants.append((variant, planned))

    for case in cases:
        for config in chosen:
            add(f"{_slug(case.id)}-{config.name}", Planned(config, case=case), case.prompt)
    for number, trigger in enumerate(triggers, 1):
        add(f"trigger-{number}", Planned(chosen[0], trigger=trigger), trigger.query)
    return Plan(skill, graph, cases, chosen, triggers, variants, request.repeat)


def _grader(session: Session, request: EvalRequest) -> ModelClient:
    name = request.grader or model_name(request.model, session.settings, os.environ)
    root = session.location.project_root
    return open_model(
        name,
        session.settings,
        root,
        lambda: SkillGraph([]),
        api_base=request.api_base,
        api_key=request.api_key,
    )


def _written_by_run(session: Session, branch: str) -> list[Entry]:
    """The entries the run's child wrote on its branch, read from its ref (the session this
    process holds knew the branch only as it was forked) (git worker)."""
    store = session.store
    tip = store.repo.git.try_run(
        "rev-parse", "--verify", "-q", branch_ref(store.session_id, branch)
    )
    fork = store.record(branch).fork_entry
    if tip.status != 0 or not tip.stdout or tip.stdout == fork:
        return []
    return store.repo.read_path(tip.stdout, *([fork] if fork else []))


def _prepare_all(session: Session, sweep: Sweep, eval_plan: Plan) -> dict[str, str]:
    """Each run's worktree made ready for its case and configuration and committed; the commit
    each run starts from, by branch (git worker)."""
    root = session.location.project_root
    prepared = {}
    for run in sweep.runs:
        planned = eval_plan.planned(run.variant)
        worktree = session.workspace(run.branch)
        skill, graph = eval_plan.skill, eval_plan.graph
        prepare(worktree, root, skill, graph, planned.configuration, planned.case)
        about = planned.case.id if planned.case else "a trigger query"
        message = f"eval of {skill.name}: {about} under {planned.configuration.name}"
        prepared[run.branch] = commit_prepared(worktree, message)
    return prepared


async def _graded(
    session: Session,
    eval_plan: Plan,
    run: Run,
    grader: Callable[[], ModelClient],
    request: EvalRequest,
    prepared: str,
) -> EvalRun:
    planned = eval_plan.planned(run.variant)
    store = session.store
    entries = await store.run(lambda: _written_by_run(session, run.branch))
    worktree = Path(await store.run(lambda: session.workspace(run.branch)))
    messages = messages_of(entries)
    output = next((m.text for m in reversed(messages) if m.role == "assistant" and m.text), "")
    run_graph = await asyncio.to_thread(lambda: load_project_skills(worktree).graph)
    config = planned.configuration
    result = EvalRun(
        case=planned.case.id if planned.case else "trigger",
        configuration=config.name,
        repeat=run.repeat,
        branch=run.branch,
        outcome=run.outcome,
        seconds=run.seconds,
        tokens=run.tokens,
        cost=run.cost,
        turns=run.turns,
        tool_calls=run.tool_calls,
        uptake=uptake_of(messages, eval_plan.skill.name, run_graph, worktree),
        output=output[-OUTPUT_KEPT:],
        error=run.error,
    )
    case = planned.case
    if case is None or run.outcome != "done":
        return result
    result.graded = await run_checks(case, worktree, request.check_timeout_s, request.sandbox)
    if case.assertions:
        files = await asyncio.to_thread(changed_since, worktree, prepared)
        model = grader()
        for assertion in case.assertions:
            result.graded.append(await grade_assertion(model, case, assertion, output, files))
    result.passed = all(g.verdict == "passed" for g in result.graded)
    return result


@dataclass
class Started:
    """An eval's sweep once its branches are forked and their worktrees prepared: the commit
    each run starts from, by branch."""

    sweep: Sweep
    request: SweepRequest
    prepared: dict[str, str]


async def start_eval(session: Session, eval_plan: Plan, request: EvalRequest) -> Started:
    """Fork the eval's branches (one sweep) and make each worktree ready (nothing runs yet)."""
    sweep_request = SweepRequest(
        f"eval of {eval_plan.skill.name}",
        [v for v, _ in eval_plan.variants],
        repeat=eval_plan.repeat,
        model=request.model,
        api_base=request.api_base,
        api_key=request.api_key,
        budget=request.budget,
        timeout_s=request.timeout_s,
        sandbox=request.sandbox,
        mcp_servers=request.mcp_servers,
    )
    sweep = await start_sweep(session, sweep_request)
    prepared = await session.store.run(lambda: _prepare_all(session, sweep, eval_plan))
    return Started(sweep, sweep_request, prepared)


async def evaluate(
    session: Session,
    eval_plan: Plan,
    request: EvalRequest,
    executor: Executor,
    progress: Progress,
) -> EvalReport:
    """Run the plan as one sweep, then grade and measure every run."""
    started = await start_eval(session, eval_plan, request)
    return await finish_eval(session, eval_plan, request, started, executor, progress)


async def finish_eval(
    session: Session,
    eval_plan: Plan,
    request: EvalRequest,
    started: Started,
    executor: Executor,
    progress: Progress,
) -> EvalReport:
    """Run the started sweep's runs, then grade and measure each one."""
    sweep = await run_sweep(session, started.sweep, started.request, executor, progress)
    prepared = started.prepared
    opened: list[ModelClient] = []

    def grader() -> ModelClient:
        if not opened:
            opened.append(_grader(session, request))
        return opened[0]

    case_runs: list[EvalRun] = []
    queried: list[tuple[Trigger, EvalRun]] = []
    for run in sweep.runs:
        graded = await _graded(session, eval_plan, run, grader, request, prepared[run.branch])
        trigger = eval_plan.planned(run.variant).trigger
        if trigger is None:
            case_runs.append(graded)
        else:
            queried.append((trigger, graded))
    return EvalReport(
        skill=eval_plan.skill.name,
        cases=[_case_json(c) for c in eval_plan.cases],
        configurations=[c.name for c in eval_plan.configurations],
        runs=case_runs,
        sweep=sweep.id,
        triggers=trigger_summary(queried) if eval_plan.triggers else None,
        stopped=sweep.stopped,
    )


def _case_json(case: EvalCase) -> dict[str, object]:
    return {
        "id": case.id,
        "prompt": case.prompt,
        "expected_output": case.expected_output,
        "files": list(case.files),
        "assertions": list(case.assertions),
        "checks": list(case.checks),
    }
