"""Abort: every child and everything it started is gone, by pid and process group."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

from support.processes import running_in_group, wait_group_gone
from support.subagent_calls import (
    bash,
    script,
    tool,
    user_agents,
    wait_for_files,
    write_agent,
)
from support.workbench_process import workbench_command

from workbench.config import agent_dir
from workbench.tool import ToolContext

# The child's pid (its process group) and the command's process group, then a long wait.
RECORD_AND_WAIT = "echo $PPID $$ > pids/$$; sleep 60"


def groups(pids: Path) -> list[int]:
    return [int(n) for p in pids.iterdir() for n in p.read_text().split()]


def all_gone(group_ids: list[int]) -> list[int]:
    return [pid for group in group_ids for pid in wait_group_gone(group)]


async def test_aborting_a_parallel_call_ends_every_child_and_command(project: Path) -> None:
    (project / "pids").mkdir()
    sleeper = script(project, "s", [bash(RECORD_AND_WAIT), {"text": "late"}])
    write_agent(user_agents(), "sleeper", model=sleeper, tools="bash")
    tasks = [{"agent": "sleeper", "task": f"t{n}"} for n in range(3)]
    context = ToolContext(cwd=project, tool_call_id="call_1")
    running = asyncio.create_task(tool(project).execute({"tasks": tasks}, context))
    await wait_for_files(project / "pids", 3)
    found = groups(project / "pids")
    assert all(running_in_group(g) for g in found)

    started = time.monotonic()
    running.cancel()
    try:
        await running
        raise AssertionError("the call should end with the cancellation")
    except asyncio.CancelledError:
        pass

    assert time.monotonic() - started < 4, "children end on SIGTERM, well before the SIGKILL"
    assert all_gone(found) == []


async def test_a_child_deaf_to_sigterm_is_killed_with_its_background_jobs(project: Path) -> None:
    """The child's event loop is stuck in a hook, so SIGTERM cannot abort it: SIGKILL follows
    after 5 s, and a job an earlier command left in the background goes too."""
    (project / "pids").mkdir()
    hooks = agent_dir() / "extensions"
    hooks.mkdir(parents=True)
    (hooks / "stuck.py").write_text(
        "import time\n"
        "def register(api):\n"
        "    def stuck(event):\n"
        "        if 'sleep 60 &' in event.args.get('command', ''):\n"
        "            time.sleep(120)\n"
        "    api.on('tool_result', stuck)\n"
    )
    background = "sleep 60 & echo $PPID $$ > pids/$$"
    deaf = script(project, "d", [bash(background), {"text": "late"}])
    write_agent(user_agents(), "deaf", model=deaf, tools="bash")
    running = asyncio.create_task(
        tool(project).execute({"agent": "deaf", "task": "t"}, ToolContext(cwd=project))
    )
    await wait_for_files(project / "pids", 1)
    await asyncio.sleep(0.5)  # the command has returned; its background job lives on
    child, command = groups(project / "pids")
    assert running_in_group(child) and running_in_group(command)

    started = time.monotonic()
    running.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await running

    assert 5 <= time.monotonic() - started < 9
    assert all_gone([child, command]) == []


def test_sigterm_to_a_headless_parent_ends_its_children(project: Path) -> None:
    (project / "pids").mkdir()
    sleeper = script(project, "s", [bash(RECORD_AND_WAIT), {"text": "late"}])
    write_agent(user_agents(), "sleeper", model=sleeper, tools="bash")
    tasks = [{"agent": "sleeper", "task": "a"}, {"agent": "sleeper", "task": "b"}]
    parent = script(
        project, "parent", [{"tool_calls": [{"name": "subagent", "arguments": {"tasks": tasks}}]}]
    )
    process = subprocess.Popen(
        # unboxed: the test reads the commands' real process ids (a box has its own)
        workbench_command("--mode", "json", "--sandbox", "off", "--model", parent, "go"),
        cwd=project,
        stdout=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
        start_new_session=True,
    )
    asyncio.run(wait_for_files(project / "pids", 2))
    found = groups(project / "pids")

    process.send_signal(signal.SIGTERM)
    out, _ = process.communicate(timeout=15)

    assert process.returncode == 128 + signal.SIGTERM
    assert '"stop_reason": "aborted"' in out.splitlines()[-1]
    assert all_gone([process.pid, *found]) == []
