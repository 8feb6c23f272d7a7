"""Run one child agent for one task: start it, fold its events into a report, end it for sure.

The child is `workbench --mode json -p --no-session` with the agent's model, tools and system
prompt; the system prompt, the API key and the task go through files in a private temporary folder
(never the command line, which other users can read with `ps` and which limits a chained task's
size). A timeout or a cancellation (the user's abort) ends the child: SIGTERM to its group, SIGKILL
after the grace.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.agent.models.choice import uses_litellm
from workbench.agent.subagents.agent_files import AgentDef
from workbench.agent.subagents.report import ChildReport
from workbench.mcp.handed import child_arguments
from workbench.processes import forkserver
from workbench.processes.child import GRACE_S, Child, ChildCommand, start_child
from workbench.sandbox.policy import Mode

SUBAGENT_MARKER = "WORKBENCH_SUBAGENT"
"""Set in a child's environment, to a value unique to the child: children get no `subagent` tool
of their own, and ending a child ends every process that carries its value."""
PROGRESS_INTERVAL_S = 0.1
STREAMING_PREFIX = b'{"type": "message_update"'


@dataclass
class Launch:
    """Everything one child needs: the agent, the task, where, and how to reach its model."""

    agent: AgentDef
    task: str
    cwd: Path
    model: str
    env: Mapping[str, str]
    api_base: str | None = None
    api_key: str | None = None
    trust: bool = False
    no_cache: bool = False
    mcp_servers: Mapping[str, Any] | None = None
    """The MCP servers the parent was handed (an editor's, `--mcp-config`'s), `.mcp.json`
    shaped; None: the child starts none at all (`mcp: none`, the parent's `--no-mcp`)."""
    sandbox: Mode = "off"
    """The child's sandbox: the parent's, narrowed by the agent file's `sandbox:`."""

    def argv(self, folder: Path) -> list[str]:
        """The child's command line; the API key and system prompt are written into `folder`."""
        argv = ["--mode", "json", "-p", "--no-session", "--model", self.model]
        if self.api_base:
            argv += ["--api-base", self.api_base]
        if self.api_key:
            key = folder / "api-key"
            key.write_text(self.api_key, encoding="utf-8")
            argv += ["--api-key-file", str(key)]
        if self.agent.tools:
            argv += ["--tools", ",".join(self.agent.tools)]
        if self.agent.system_prompt.strip():
            prompt = folder / "system-prompt.md"
            prompt.write_text(self.agent.system_prompt, encoding="utf-8")
            argv += ["--system-prompt-file", str(prompt)]
        if self.trust:
            argv.append("--trust")
        if self.agent.confined:
            argv.append("--confine-tools")
        argv += ["--sandbox", self.sandbox]
        if self.no_cache:
            argv.append("--no-cache")
        return argv + child_arguments(self.mcp_servers, folder)

    def command(self, folder: Path) -> ChildCommand:
        stdin = folder / "task.md"
        stdin.write_text(self.task, encoding="utf-8")
        marker = (SUBAGENT_MARKER, f"{os.getpid()}-{uuid.uuid4().hex[:12]}")
        inherited = {k: v for k, v in self.env.items() if k != forkserver.CHILD_MARKER}
        env = {**inherited, marker[0]: marker[1]}  # a warm parent's children may start warm
        warm = forkserver.enabled(env) and uses_litellm(self.model)
        return ChildCommand(self.argv(folder), self.cwd, env, marker, stdin, warm)


async def _follow(child: Child, report: ChildReport, changed: Callable[[], None]) -> None:
    """Fold the child's lines into `report` as they come; streaming deltas tell the progress
    at most once per interval."""
    last_update = 0.0
    async for line in child.lines():
        report.add_line(line)
        if line.startswith(STREAMING_PREFIX):
            now = time.monotonic()
            if now - last_update < PROGRESS_INTERVAL_S:
                continue
            last_update = now
        changed()


def _ended(child: Child) -> str:
    if child.killed:
        return f"the child ignored SIGTERM for {GRACE_S:g} s and was killed"
    return "the child was stopped"


async def run_child(
    launch: Launch, report: ChildReport, timeout_s: float, changed: Callable[[], None]
) -> None:
    """Run the child to its end; `report` says how it went. Cancellation stops the child (and
    is re-raised once the child is gone)."""
    folder = Path(tempfile.mkdtemp(prefix="workbench-subagent-"))
    report.status, report.started_at = "running", time.time()
    changed()
    try:
        try:
            child = await start_child(launch.command(folder))
        except OSError as exc:
            report.fail("not started", f"the child could not start: {exc}")
            return
        report.warm = child.warm
        try:
            async with asyncio.timeout(timeout_s):
                await _follow(child, report, changed)
                exit_code = await child.wait()
        except TimeoutError:
            await asyncio.shield(child.end())
            report.fail("timeout", f"no answer within {timeout_s:g} s; {_ended(child)}")
        except asyncio.CancelledError:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(child.end())
            report.fail("aborted", f"aborted by the user; {_ended(child)}")
            raise
        else:
            report.conclude(exit_code, child.stderr)
        report.stderr = child.stderr
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        report.ended_at = time.time()
        changed()
