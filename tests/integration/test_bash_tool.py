"""The bash tool with real processes: exit codes, merged output, timeouts, aborts, long output."""

from __future__ import annotations

import asyncio
import re
import tempfile
from pathlib import Path

import pytest
from support.processes import running_in_group, wait_group_gone

from workbench.agent.tools.bash import execute
from workbench.errors import WorkbenchError
from workbench.tool import ToolContext


async def test_stdout_and_stderr_are_merged_with_the_exit_code(tmp_path: Path) -> None:
    result = await execute(
        {"command": "echo out; echo err >&2; pwd; exit 3"}, ToolContext(cwd=tmp_path)
    )
    assert result.text == f"out\nerr\n{tmp_path}\n\nExit code: 3"
    assert result.is_error
    assert result.details["exit_code"] == 3


async def test_success_is_not_an_error(tmp_path: Path) -> None:
    result = await execute({"command": "true"}, ToolContext(cwd=tmp_path))
    assert result.text == "(no output)\n\nExit code: 0"
    assert not result.is_error


async def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    command = "sleep 30 & echo $$ > pgid; echo started; sleep 30"
    result = await execute({"command": command, "timeout": 0.5}, ToolContext(cwd=tmp_path))
    pgid = int((tmp_path / "pgid").read_text())
    assert "started" in result.text
    assert "timed out after 0.5 s" in result.text
    assert result.details["timed_out"]
    assert wait_group_gone(pgid) == [], "the background sleep survived the timeout"


async def test_cancellation_kills_the_process_group(tmp_path: Path) -> None:
    updates: list[str] = []
    context = ToolContext(cwd=tmp_path, update=updates.append)
    task = asyncio.create_task(
        execute({"command": "echo $$ > pgid; (sleep 30 &); echo ready; sleep 30"}, context)
    )
    while not updates:
        await asyncio.sleep(0.02)
    pgid = int((tmp_path / "pgid").read_text())
    assert len(running_in_group(pgid)) >= 2
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert wait_group_gone(pgid) == []
    assert updates[-1] == "ready"


async def test_output_that_comes_just_after_an_update_is_shown_once_the_command_goes_quiet(
    tmp_path: Path,
) -> None:
    """Updates are at most one per interval: what came within it is shown when it ends, not
    held until more output comes (a command that then waits would show a stale tail forever)."""
    updates: list[str] = []
    command = "echo first; sleep 0.03; echo second; until [ -f go ]; do sleep 0.02; done"
    task = asyncio.create_task(
        execute({"command": command}, ToolContext(cwd=tmp_path, update=updates.append))
    )
    for _ in range(250):
        if updates and "second" in updates[-1]:
            break
        await asyncio.sleep(0.02)
    (tmp_path / "go").touch()
    await task
    assert updates[-1] == "first\nsecond", "the quiet command's last lines were never shown"


async def test_long_output_keeps_the_tail_and_saves_everything(tmp_path: Path) -> None:
    result = await execute({"command": "seq 1 100000"}, ToolContext(cwd=tmp_path))
    lines = result.text.splitlines()
    assert "100000" in lines
    assert "1" not in lines[:5]
    saved = re.search(r"Full output: (\S+)\]", result.text)
    assert saved, result.text[-300:]
    full = Path(saved.group(1)).read_text().splitlines()
    assert full[0] == "1" and full[-1] == "100000" and len(full) == 100000
    assert result.details["truncated"] and result.details["full_output_path"] == saved.group(1)
    Path(saved.group(1)).unlink()


async def test_many_short_lines_are_saved_too(tmp_path: Path) -> None:
    """Over 2,000 lines but under 50 KB: cut by the line limit, and still saved in full."""
    result = await execute({"command": "seq 1 5000"}, ToolContext(cwd=tmp_path))
    assert result.text.splitlines()[0] == "3001"
    saved = re.search(r"Full output: (\S+)\]", result.text)
    assert saved, result.text[-300:]
    assert Path(saved.group(1)).read_text().splitlines() == [str(n) for n in range(1, 5001)]
    assert result.details["full_output_path"] == saved.group(1)
    Path(saved.group(1)).unlink()


async def test_an_aborted_command_leaves_no_output_file_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spill_dir = tmp_path / "tmp"
    spill_dir.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spill_dir))  # ours alone, not the shared /tmp

    def spills() -> set[Path]:
        return set(spill_dir.glob("workbench-bash-*"))

    before = spills()
    task = asyncio.create_task(
        execute({"command": "seq 1 30000; sleep 30"}, ToolContext(cwd=tmp_path))
    )
    for _ in range(500):
        if spills() - before:
            break
        await asyncio.sleep(0.02)
    assert spills() - before, "the long output never spilled to a file"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert spills() - before == set()


async def test_background_job_does_not_hold_the_call_open(tmp_path: Path) -> None:
    result = await asyncio.wait_for(
        execute({"command": "sleep 5 & echo done"}, ToolContext(cwd=tmp_path)), timeout=3
    )
    assert result.text.startswith("done")


@pytest.mark.parametrize("args", [{"command": "  "}, {"command": "ls", "timeout": -1}])
async def test_bad_arguments_are_errors(tmp_path: Path, args: dict[str, object]) -> None:
    with pytest.raises(WorkbenchError):
        await execute(args, ToolContext(cwd=tmp_path))
