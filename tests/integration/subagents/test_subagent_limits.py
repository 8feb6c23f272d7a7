"""The settings that bound a call: tasks per call, children at once, time per task."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from support.processes import wait_group_gone
from support.subagent_calls import bash, call, script, settings, user_agents, write_agent

from workbench.errors import WorkbenchError

# Each child writes "<start> <end>" (seconds) of a one-second wait into its own file.
RECORD_TIMES = "s=$(date +%s.%N); sleep 1; echo $s $(date +%s.%N) > times/$$"


def most_at_once(intervals: list[tuple[float, float]]) -> int:
    """The largest number of intervals open at the same moment."""
    edges = sorted([(start, 1) for start, _ in intervals] + [(end, -1) for _, end in intervals])
    running = peak = 0
    for _, step in edges:
        running += step
        peak = max(peak, running)
    return peak


async def test_no_more_children_run_at_once_than_the_setting_allows(project: Path) -> None:
    settings(project, max_concurrency=2)
    (project / "times").mkdir()
    worker = script(project, "worker", [bash(RECORD_TIMES), {"text": "recorded"}])
    write_agent(user_agents(), "worker", model=worker, tools="bash")
    tasks = [{"agent": "worker", "task": f"task {n}"} for n in range(5)]

    done = await call(project, {"tasks": tasks})

    assert [r["status"] for r in done.reports] == ["completed"] * 5
    intervals = [
        (float(start), float(end))
        for start, end in (p.read_text().split() for p in (project / "times").iterdir())
    ]
    assert len(intervals) == 5
    assert most_at_once(intervals) == 2, sorted(intervals)


async def test_more_tasks_than_allowed_are_refused_before_any_child_starts(project: Path) -> None:
    settings(project, max_parallel_tasks=3)
    write_agent(user_agents(), "worker", model=script(project, "w", [bash("touch ran")]))
    tasks = [{"agent": "worker", "task": "t"}] * 4

    with pytest.raises(
        WorkbenchError, match=r"at most 3 parallel tasks per call; this call gave 4"
    ):
        await call(project, {"tasks": tasks})
    assert not (project / "ran").exists()


async def test_a_runaway_child_is_stopped_at_the_timeout(project: Path) -> None:
    settings(project, timeout_seconds=6)  # ample for the child to reach its command when loaded
    runaway = script(project, "r", [bash("echo $$ > command-group; sleep 60"), {"text": "late"}])
    write_agent(user_agents(), "runaway", model=runaway, tools="bash")
    started = time.monotonic()

    done = await call(project, {"agent": "runaway", "task": "never ends"})

    assert time.monotonic() - started < 30  # stopped at the timeout, not after the command's 60 s
    assert done.result.is_error
    (report,) = done.reports
    assert (report["status"], report["stop_reason"]) == ("failed", "timeout")
    assert "Failed: no answer within 6 s; the child was stopped" in done.result.text
    assert wait_group_gone(int((project / "command-group").read_text())) == []
