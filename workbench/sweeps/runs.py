"""One run of a sweep: its child `workbench --mode json` on its branch, in its worktree, then
its check; the child's events folded into the run's figures as they come.

The child is started by the one child runner (`workbench.processes.child`). It opens the session
on its own branch alone (`BRANCH_WRITER`): the sweep holds the session's lock. The variant's
settings reach it as `WORKBENCH_SETTINGS`; the key, the question and the appended system prompt
go through files in a private folder, never the command line.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.agent.models.choice import uses_litellm
from workbench.agent.models.rate_gate import GATE_VARIABLE
from workbench.agent.subagents.report import ChildReport
from workbench.config import SETTINGS_OVERRIDE
from workbench.errors import WorkbenchError
from workbench.mcp.handed import child_arguments
from workbench.processes import forkserver
from workbench.processes.child import ChildCommand, start_child
from workbench.sandbox import Boxed, SandboxPolicy, boxed
from workbench.sessions.session import BRANCH_WRITER
from workbench.sweeps.record import Check, Run
from workbench.sweeps.variants import Variant

SWEEP_MARKER = "WORKBENCH_SWEEP_RUN"
"""Set in each run's environment to a value of its own: ending a run ends all it started."""
CHECK_TIMEOUT_S = 600.0
CHECK_TAIL_LINES = 20


@dataclass(frozen=True)
class Launch:
    """What one run needs: where, on which branch, and how to reach its model."""

    session: str
    branch: str
    worktree: Path
    base: str | None
    prompt: str
    model: str | None
    variant: Variant
    api_base: str | None = None
    api_key: str | None = None
    check: str | None = None
    check_timeout_s: float = CHECK_TIMEOUT_S
    skill_filters: tuple[str, ...] = ()
    """`!name` for each of the project's skills the variant leaves out."""
    timeout_s: float | None = None
    """The agent's time limit (None: none); past it the run is ended and marked `timeout`."""
    gate: Path | None = None
    """The rate gate the sweep's runs share (`workbench.agent.models.rate_gate`)."""
    sandbox: SandboxPolicy = field(default_factory=SandboxPolicy)
    """The box of the check; the run's agent gets its mode (`--sandbox`) and may narrow it."""
    mcp_servers: Mapping[str, Any] | None = field(default_factory=dict)
    """The MCP servers the session hands on (`workbench.mcp.handed`); None: the run starts
    none."""
    prepare: Callable[[], Path] | None = None
    """Makes the worktree when the run starts (a checkout takes most of a fork's time: made
    up front, every run would wait for all of them); None: it exists, or is made elsewhere."""

    def command(self, folder: Path) -> ChildCommand:
        argv = ["--mode", "json", "-p", "--session", self.session, "--branch", self.branch]
        argv += ["--sandbox", self.sandbox.mode]
        if self.model:
            argv += ["--model", self.model]
        if self.api_base:
            argv += ["--api-base", self.api_base]
        if self.api_key:
            (folder / "api-key").write_text(self.api_key, encoding="utf-8")
            argv += ["--api-key-file", str(folder / "api-key")]
        if self.variant.system_prompt_append:
            (folder / "append.md").write_text(self.variant.system_prompt_append, encoding="utf-8")
            argv += ["--append-system-prompt", str(folder / "append.md")]
        argv += child_arguments(self.mcp_servers, folder)
        stdin = folder / "prompt.md"
        stdin.write_text(self.prompt, encoding="utf-8")
        marker = (SWEEP_MARKER, f"{os.getpid()}-{uuid.uuid4().hex[:12]}")
        env = {k: v for k, v in os.environ.items() if k != forkserver.CHILD_MARKER}
        env.update({marker[0]: marker[1], BRANCH_WRITER: f"{self.session}/{self.branch}"})
        if self.gate is not None:
            env[GATE_VARIABLE] = str(self.gate)
        override = self.variant.nested_settings()
        if self.skill_filters:
            override["skill_filters"] = list(self.skill_filters)
        if override:
            env[SETTINGS_OVERRIDE] = json.dumps(override)
        warm = forkserver.enabled(env) and uses_litellm(self.model or "")
        return ChildCommand(argv, self.worktree, env, marker, stdin, warm)


class Figures:
    """The child's events folded into a run's figures (tokens as the provider reported them)."""

    def __init__(self, run: Run, task: str) -> None:
        self.run = run
        self.report = ChildReport("sweep", run.variant, task)
        self.costs: list[float | None] = []

    def add_line(self, raw: bytes) -> None:
        try:
            event = json.loads(raw)
        except ValueError:
            event = None
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            self.report.add_line(raw)
            return
        self.report.apply(event)
        if event["type"] == "usage_update":
            usage = event.get("usage") or {}
            self.costs.append(usage.get("cost"))
        elif event["type"] == "tool_execution_start":
            self.run.tool_calls += 1
            self.run.tool = str(event.get("tool_name") or "") or None
        elif event["type"] == "tool_execution_end":
            self.run.tool = None
        usage = self.report.usage
        self.run.tokens.input, self.run.tokens.output = usage.input, usage.output
        self.run.tokens.cache_read, self.run.tokens.cache_write = (
            usage.cache_read,
            usage.cache_write,
        )
        self.run.cost = None if None in self.costs else sum(c for c in self.costs if c is not None)
        self.run.turns = self.report.turns
        self.run.skills_loaded = list(
            dict.fromkeys(str(s["skill"]) for s in self.report.skill_loads)
        )
        self.run.violations = len(self.report.violations)


async def run_one(launch: Launch, run: Run, changed: Callable[[Run], None]) -> None:
    """Run the child, then the check; `run` holds the outcome. Cancellation ends the child for
    sure (SIGTERM, then SIGKILL) and marks the run aborted before it is re-raised."""
    folder = Path(tempfile.mkdtemp(prefix="workbench-sweep-"))
    figures = Figures(run, launch.prompt)
    started = time.monotonic()
    run.outcome, run.error, run.check, run.tool_calls = "running", None, None, 0
    run.seconds = 0.0  # a resumed run starts its count again
    changed(run)
    try:
        if launch.prepare is not None:
            await asyncio.to_thread(launch.prepare)
        child = await start_child(launch.command(folder))
        try:
            async with asyncio.timeout(launch.timeout_s):
                async for line in child.lines():
                    figures.add_line(line)
                    run.seconds = time.monotonic() - started
                    changed(run)
                code = await child.wait()
        except TimeoutError:
            await asyncio.shield(child.end())
            run.outcome, run.error = "timeout", f"no end within {launch.timeout_s:g} s"
            return
        except asyncio.CancelledError:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(child.end())
            raise
        figures.report.conclude(code, child.stderr)
        run.outcome = "done" if figures.report.ok else "failed"
        run.error = figures.report.error
        if launch.check and run.outcome == "done":
            run.tool = "check"  # the row says what the run waits for
            changed(run)
            run.check = await run_check(
                launch.check, launch.worktree, launch.check_timeout_s, launch.sandbox
            )
        await asyncio.to_thread(_diff_figures, launch, run)
    except asyncio.CancelledError:
        # Stopped anywhere (its worktree made, its child running, its check not yet said): not
        # a pass, and `--resume` runs it again.
        run.outcome = "aborted"
        raise
    finally:
        run.seconds, run.tool = time.monotonic() - started, None
        shutil.rmtree(folder, ignore_errors=True)
        changed(run)


async def run_check(
    command: str, cwd: Path, timeout_s: float, sandbox: SandboxPolicy | None = None
) -> Check:
    """`command` in the run's worktree, in its box: passed when it exits 0 within
    `timeout_s`. A box that cannot run here fails the check with the reason."""
    try:
        async with boxed(sandbox or SandboxPolicy(), cwd, ["bash", "-c", command]) as box:
            return await _checked(box, cwd, timeout_s)
    except WorkbenchError as exc:
        return Check(False, None, str(exc))


async def _checked(box: Boxed, cwd: Path, timeout_s: float) -> Check:
    process = await asyncio.create_subprocess_exec(
        *box.argv,
        cwd=cwd,
        env=box.env,
        stdin=subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        output, _ = await asyncio.wait_for(process.communicate(), timeout_s)
    except (TimeoutError, asyncio.CancelledError) as stopped:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
        if isinstance(stopped, asyncio.CancelledError):
            raise
        return Check(False, None, f"the check did not end within {timeout_s:g} s")
    text = output.decode("utf-8", "replace")
    lines = text.rstrip().splitlines()
    if process.returncode:
        lines += [f"[sandbox ({box.policy.mode}) denied: {d}]" for d in box.denials(text)]
    tail = "\n".join(lines[-CHECK_TAIL_LINES:])
    return Check(process.returncode == 0, process.returncode, tail)


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    return done.stdout


def _diff_figures(launch: Launch, run: Run) -> None:
    """Files changed and lines added and removed in the worktree since its fork, untracked
    files counted as added."""
    if launch.base is None or not launch.worktree.is_dir():
        return
    files, added, removed = 0, 0, 0
    for line in _git(launch.worktree, "diff", "--numstat", launch.base, "--").splitlines():
        plus, minus, _ = line.split("\t", 2)
        files += 1
        added += int(plus) if plus.isdigit() else 0
        removed += int(minus) if minus.isdigit() else 0
    for name in _git(launch.worktree, "ls-files", "--others", "--exclude-standard").splitlines():
        files += 1
        with contextlib.suppress(OSError, UnicodeDecodeError):
            added += len((launch.worktree / name).read_text(encoding="utf-8").splitlines())
    run.files_changed, run.lines_added, run.lines_removed = files, added, removed
