"""Helpers for sub-agent tests: agent files, child scripts, and calls of the real `subagent` tool.

The parent side runs in the test process (the tool's `execute`, or a whole `Workbench`); every
child is a real `workbench --mode json` process.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from support.workbench_process import write_user_settings
from workbench.agent.subagents.settings import SubagentHost
from workbench.agent.subagents.tool import SubagentTool
from workbench.config import agent_dir
from workbench.runtime import WorkbenchOptions
from workbench.tool import ToolContext, ToolResult


def write_agent(
    folder: Path,
    name: str,
    *,
    model: str | None = None,
    tools: str | None = None,
    description: str = "a test agent",
    body: str = "You are a test agent.",
) -> Path:
    """An agent definition file in `folder` (created)."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = ["---", f"name: {name}", f"description: {description}"]
    if tools is not None:
        lines.append(f"tools: {tools}")
    if model is not None:
        lines.append(f"model: {model}")
    path = folder / f"{name}.md"
    path.write_text("\n".join([*lines, "---", body, ""]), encoding="utf-8")
    return path


def user_agents() -> Path:
    return agent_dir() / "agents"


def project_agents(project: Path) -> Path:
    return project / ".pi" / "agents"


def script(folder: Path, name: str, turns: list[dict[str, Any]]) -> str:
    """A `scripted:` model string (absolute path) playing `turns`."""
    path = folder / f"{name}.json"
    path.write_text(json.dumps(turns), encoding="utf-8")
    return f"scripted:{path}"


def bash(command: str) -> dict[str, Any]:
    """A scripted turn that runs one bash command."""
    return {"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}


def settings(project: Path, **subagents: Any) -> None:
    """`subagents.*` for the runs in `project`: the user's settings (a project's wait for trust)."""
    write_user_settings({"subagents": subagents})


Confirm = Callable[[str, str], Awaitable[bool]]


@dataclass
class Call:
    """What one tool call produced: the result and every progress update, in order."""

    result: ToolResult
    updates: list[str] = field(default_factory=list)

    @property
    def reports(self) -> list[dict[str, Any]]:
        return self.result.details["subagent"]["results"]


def tool(project: Path, *, model: str = "demo", **options: Any) -> SubagentTool:
    """The tool as a session on `model` with these `WorkbenchOptions` would offer it."""
    return SubagentTool(SubagentHost(WorkbenchOptions(cwd=project, **options), lambda: model))


async def call(project: Path, args: dict[str, Any], **host: Any) -> Call:
    """Call the tool as the agent loop would, collecting its updates."""
    updates: list[str] = []
    context = ToolContext(cwd=project, tool_call_id="call_1", update=updates.append)
    result = await tool(project, **host).execute(args, context)
    return Call(result, updates)


async def wait_for_files(folder: Path, count: int, timeout: float = 30.0) -> list[Path]:
    """The files in `folder` once there are `count` of them with content."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        files = [p for p in folder.glob("*") if p.is_file() and p.read_text().strip()]
        if len(files) >= count:
            return files
        await asyncio.sleep(0.05)
    raise AssertionError(f"{count} files did not appear in {folder} within {timeout} s")
