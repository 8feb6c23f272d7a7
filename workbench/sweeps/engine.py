"""A sweep from start to end: its branches forked from one position, its runs executed, its
record kept in the session.

The sweep holds the session's lock throughout; each run writes entries on its own branch only.
The branches are forked as `fork` forks them (`fork_branch`: the conversation branch and its own
worktree and project branch), so the user's checkout, HEAD, index and uncommitted files are never
touched. Every branch is named `<sweep>.<variant>-<repeat>` (`sweep-3.model-b-2`).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from workbench.agent.models.rate_gate import GATE_VARIABLE
from workbench.errors import UsageError
from workbench.sandbox import SandboxPolicy, mode, narrowest
from workbench.sessions.session import Session
from workbench.sessions.store.state import Position
from workbench.sessions.workspaces.fork import fork_branch
from workbench.skills.discover import load_project_skills
from workbench.sweeps.executor import Budget, Executor, Progress
from workbench.sweeps.prices import check_priced
from workbench.sweeps.record import Run, Sweep
from workbench.sweeps.runs import Launch
from workbench.sweeps.variants import Variant

INTERRUPTED = "stopped by the user"
"""Why a sweep stopped when its runs were cancelled: Ctrl+C in the CLI, Esc in the app."""


@dataclass
class SweepRequest:
    """What `workbench sweep` was asked."""

    prompt: str
    variants: list[Variant]
    repeat: int = 1
    at: str | None = None
    check: str | None = None
    check_timeout_s: float = 600.0
    timeout_s: float | None = None
    model: str | None = None
    api_base: str | None = None
    api_key: str | None = None
    budget: Budget = field(default_factory=Budget)
    sandbox: SandboxPolicy = field(default_factory=SandboxPolicy)
    """The box of the runs' commands and of the checks (`choose_sandbox`: settings and
    `--sandbox`); each run's agent gets its mode and can only narrow it."""
    mcp_servers: dict[str, Any] | None = field(default_factory=dict)
    """The MCP servers the session hands its runs (an editor's, `--mcp-config`'s; None for
    `--no-mcp`); each run also finds the user's and a trusted project's itself."""
    checkout: bool = True
    """Make each run's worktree here when its run starts (the runs of this machine work in
    them); False when the runs work elsewhere (on Ray's workers): a worktree is then made on
    its first use."""


def sweeps_of(session: Session) -> list[Sweep]:
    """The session's sweeps, oldest first: the newest record of each id."""
    found: dict[str, Sweep] = {}
    for entry in session.store.all_entries():
        if entry.type == "sweep":
            sweep = Sweep.from_record(entry.payload)
            found.pop(sweep.id, None)
            found[sweep.id] = sweep
    return sorted(found.values(), key=lambda s: s.created)


def find_sweep(session: Session, sweep_id: str) -> Sweep:
    for sweep in sweeps_of(session):
        if sweep.id == sweep_id:
            return sweep
    known = ", ".join(s.id for s in sweeps_of(session)) or "none yet"
    raise UsageError(f"no sweep {sweep_id!r} in session {session.id}", f"sweeps: {known}")


def _fork_all(
    session: Session, request: SweepRequest, sweep_id: str
) -> tuple[str | None, list[Run]]:
    """Fork every run's branch from the same position, then go back to where the session was
    (git worker)."""
    store = session.store
    before = Position(store.state.position.branch, store.state.position.entry)
    if request.at is not None:
        store.move_to(store.resolve(request.at))
    position = Position(store.state.position.branch, store.state.position.entry)
    fork_entry = store.position_entry()
    runs = [
        Run(f"{sweep_id}.{variant.name}-{repeat}", variant.name, repeat)
        for variant in request.variants
        for repeat in range(1, request.repeat + 1)
    ]
    names = [run.branch for run in runs]
    plans = session.workspaces.plan(store.session_id, names, store.state, store.branch)
    for name, planned in zip(names, plans, strict=True):
        fork_branch(store, session.workspaces, name, None, defer_worktree=True, planned=planned)
        # Back at the fork's position for the next fork: in memory only (the path is the
        # same), written once at the end.
        store.state.position = position
    if before.entry is not None:
        store.move_to(store.resolve(before.entry))
    else:
        store.move_to_branch(before.branch)
    made = [store.record(run.branch).worktree for run in runs]
    session.workspaces.add_new([w for w in made if w is not None])
    return fork_entry, runs


async def start_sweep(session: Session, request: SweepRequest) -> Sweep:
    """Fork the sweep's branches and record it (nothing runs yet)."""
    if request.repeat < 1:
        raise UsageError("--repeat takes a count of 1 or more")
    _check_budget(session, request.variants, request)
    await asyncio.to_thread(skill_filters, session, request.variants)  # unknown names: now
    sweep_id = f"sweep-{len(await session.store.run(lambda: sweeps_of(session))) + 1}"
    branch = session.branch
    sweep = Sweep(
        sweep_id,
        session.id,
        branch,
        None,
        request.prompt,
        request.check,
        request.variants,
        [],
        time.time(),
    )
    if request.at is None and session.store.position_entry() is None:
        # A session with no entry yet: the runs fork from the sweep's first record, so that
        # each branch has an entry to start from (and travels with a push, as `--executor ray`
        # sends it).
        await save(session, sweep)
    sweep.at, sweep.runs = await session.store.run(lambda: _fork_all(session, request, sweep_id))
    await save(session, sweep)
    return sweep


async def save(session: Session, sweep: Sweep) -> None:
    """A new `sweep` entry on the branch it started from: the newest record of its id."""
    payload = sweep.to_record()
    await session.store.run(lambda: session.store.append_to_branch(sweep.branch, "sweep", payload))


def _check_budget(session: Session, variants: list[Variant], request: SweepRequest) -> None:
    if request.budget.max_cost is not None:
        check_priced([v.model or request.model for v in variants], session.settings)


def _glob_escaped(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def skill_filters(session: Session, variants: list[Variant]) -> dict[str, tuple[str, ...]]:
    """Variant name -> `!name` for each of the project's skills it leaves out; a skill it names
    that the project does not have is a usage error."""
    if all(v.skills is None for v in variants):
        return {}
    found = sorted(load_project_skills(session.location.project_root).graph.skills)
    chosen: dict[str, tuple[str, ...]] = {}
    for variant in variants:
        if variant.skills is None:
            continue
        unknown = sorted(set(variant.skills) - set(found))
        if unknown:
            raise UsageError(
                f"--variant {variant.text}: no skill named {', '.join(unknown)}",
                f"the project's skills: {', '.join(found) or 'none'}",
            )
        left_out = [n for n in found if n not in variant.skills]
        chosen[variant.name] = tuple(f"!{_glob_escaped(n)}" for n in left_out)
    return chosen


def _launch(
    session: Session,
    sweep: Sweep,
    run: Run,
    request: SweepRequest,
    filters: dict[str, tuple[str, ...]],
    gate: Path,
) -> Launch:
    variant = sweep.variant(run.variant)
    asked = variant.settings.get("sandbox.mode")  # a variant may narrow the box, never widen it
    narrowed = narrowest(request.sandbox.mode, None if asked is None else mode(asked, run.variant))
    box = replace(request.sandbox, mode=narrowed)
    record = session.store.record(run.branch)
    worktree = session.workspace(run.branch, create=False)
    made = record.worktree
    prepare = None
    if request.checkout and made is not None and not made.removed:
        prepare = partial(session.workspaces.ensure, made)
    return Launch(
        session=session.id,
        branch=run.branch,
        worktree=Path(worktree),
        base=record.worktree.base if record.worktree else None,
        prompt=variant.prompt or sweep.prompt,
        model=variant.model or request.model,
        variant=variant,
        api_base=request.api_base,
        api_key=request.api_key,
        check=sweep.check,
        check_timeout_s=request.check_timeout_s,
        skill_filters=filters.get(variant.name, ()),
        timeout_s=request.timeout_s,
        gate=gate,
        sandbox=box,
        mcp_servers=request.mcp_servers,
        prepare=prepare,
    )


async def run_sweep(
    session: Session,
    sweep: Sweep,
    request: SweepRequest,
    executor: Executor,
    progress: Progress,
) -> Sweep:
    """Run what the sweep is missing, then record it; a Ctrl+C stops every run, records what
    they did, and is passed on. The runs share one rate gate: the one named in the environment
    (shared with other sweeps), else one of their own."""
    _check_budget(session, sweep.variants, request)
    filters = await asyncio.to_thread(skill_filters, session, sweep.variants)
    missing = sweep.missing()
    named = os.environ.get(GATE_VARIABLE)
    gate = Path(named) if named else Path(tempfile.mkdtemp(prefix="workbench-rate-"))
    try:
        launches = await session.store.run(
            lambda: [_launch(session, sweep, run, request, filters, gate) for run in missing]
        )
        work = list(zip(launches, missing, strict=True))
        try:
            sweep.stopped = await executor.execute(work, request.budget, progress)
        except asyncio.CancelledError:
            sweep.stopped = INTERRUPTED
            await asyncio.shield(save(session, sweep))
            raise
    finally:
        if not named:
            shutil.rmtree(gate, ignore_errors=True)
    await save(session, sweep)
    return sweep
