"""A sub-agent and a sweep's runs are boxed too: a child inherits its parent's mode and can
only narrow it (an agent file's `sandbox:`), a sweep's agents and checks run boxed in their own
worktrees, and a boxed command dies with a killed workbench process."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest
from support.openai_server import OpenAIServer, Reply
from support.sandbox_dirs import sleepers, wait_until
from support.subagent_calls import bash, script, tool, user_agents, write_agent
from support.workbench_process import run_workbench, workbench_command

from workbench.sandbox import SandboxPolicy
from workbench.tool import ToolContext


def boxed_agent(project: Path, name: str, command: str, sandbox: str | None) -> None:
    model = script(project, name, [bash(command), {"text": "done"}])
    path = write_agent(user_agents(), name, model=model, tools="bash")
    if sandbox is not None:
        text = path.read_text().replace("---\n", f"---\nsandbox: {sandbox}\n", 1)
        path.write_text(text)


@pytest.mark.parametrize(
    ("parent", "agent_file", "boxed"),
    [
        ("workspace", None, True),  # inherited
        ("workspace", "off", True),  # an agent file cannot widen its parent's box
        ("off", "workspace", True),  # but it can narrow it
        ("off", None, False),  # off as today
    ],
)
async def test_a_sub_agent_runs_its_commands_in_its_parents_box(
    work: Path, outside: Path, parent: str, agent_file: str | None, boxed: bool
) -> None:
    target = outside / "from-child.txt"
    boxed_agent(work, "writer", f"echo in > inside.txt; echo out > {target}", agent_file)
    context = ToolContext(work, sandbox=SandboxPolicy(mode=parent))  # type: ignore[arg-type]
    result = await tool(work).execute({"agent": "writer", "task": "write"}, context)
    assert not result.is_error, result.text
    assert (work / "inside.txt").read_text() == "in\n"
    assert target.exists() is not boxed


def test_a_sweeps_agent_and_check_run_boxed_in_their_worktree(
    work: Path, outside: Path, server: OpenAIServer
) -> None:
    def writes(body: dict[str, object]) -> Reply:
        if body["messages"][-1]["role"] == "tool":  # type: ignore[index]
            return Reply(text="done")
        command = f"echo in > inside.txt; echo out > {outside}/from-agent.txt"
        return Reply(tool_calls=[{"name": "bash", "arguments": {"command": command}}])

    server.add(writes, writes)
    check = f"test -f inside.txt && echo out > {outside}/from-check.txt"
    done = run_workbench(
        *("sweep", "--api-base", server.url, "--api-key", "none", "--format", "json"),
        *("--variant", "model=openai/m", "--check", check, "--sandbox", "workspace"),
        *("--", "write the files"),
        cwd=work,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert not (outside / "from-agent.txt").exists()
    assert not (outside / "from-check.txt").exists()
    assert not (work / "inside.txt").exists(), "the run worked in its own worktree"
    assert '"passed": false' in done.stdout
    assert "denied: write outside the project" in done.stdout


def test_a_boxed_command_dies_with_a_killed_workbench(work: Path, server: OpenAIServer) -> None:
    """Unboxed, such a command outlives the killed process (tests/integration/
    test_killed_call.py); boxed, it dies with it (`--die-with-parent`)."""
    mark = "987653"
    command = f"sleep {mark}1 & sleep {mark}2; wait"
    server.add(Reply(tool_calls=[{"name": "bash", "arguments": {"command": command}}]))
    model = ("--model", "openai/m", "--api-base", server.url, "--api-key", "k")
    first = subprocess.Popen(
        workbench_command("-p", "--sandbox", "workspace", *model, "sleep"),
        cwd=work,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_until(lambda: len(sleepers(mark)) == 2 or first.poll() is not None, timeout=120)
    assert len(sleepers(mark)) == 2, f"the command never started (exit {first.poll()})"
    os.kill(first.pid, signal.SIGKILL)
    first.wait()
    assert wait_until(lambda: not sleepers(mark)), f"still running: {sleepers(mark)}"
