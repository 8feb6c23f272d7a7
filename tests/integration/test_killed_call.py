"""A call whose process was killed mid-run is reported to the model as of unknown outcome."""

from __future__ import annotations

import os
import signal
import subprocess
import time

from support.openai_server import Reply
from support.workbench_process import run_workbench, workbench_command


def wait_for(path, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return path.exists()


def test_a_call_cut_off_by_a_kill_may_have_run(project, server):
    started, finished = project / "started", project / "finished"
    command = f"touch {started}; sleep 1; touch {finished}"
    server.add(Reply(tool_calls=[{"name": "bash", "arguments": {"command": command}}]))
    model = ("--model", "openai/m", "--api-base", server.url, "--api-key", "k")
    # Unboxed, the command outlives the killed process (a boxed one dies with it:
    # tests/integration/sandbox/test_sandbox_runs.py).
    first = subprocess.Popen(
        workbench_command("-p", "--sandbox", "off", *model, "make the files"),
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    assert wait_for(started), "the command never started"
    os.kill(first.pid, signal.SIGKILL)
    first.wait()
    assert wait_for(finished), "the command went on to finish on its own"

    server.add(Reply(text="I will check first."))
    resumed = run_workbench("-p", "-c", *model, "did it work?", cwd=project)
    assert resumed.returncode == 0, resumed.stderr
    (told,) = [m for m in server.requests[-1]["messages"] if m["role"] == "tool"]
    assert "may or may not have run" in told["content"]
    assert "not run" not in told["content"].replace("may or may not have run", "")
