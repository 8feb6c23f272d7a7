"""A sweep stopped from outside: Ctrl+C ends every run it started, a child killed with SIGKILL
fails its row alone; what the runs wrote stays in their branches."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from support.git_project import make_project
from support.openai_server import OpenAIServer, Reply
from support.workbench_process import run_workbench, workbench_command


def marked(needle: bytes) -> list[int]:
    """Live processes whose environment holds `needle`."""
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if needle in environ.read_bytes():
                stat = (environ.parent / "stat").read_text().rsplit(")", 1)[1].split()
                if stat[0] != "Z":
                    found.append(int(environ.parent.name))
        except OSError:
            continue
    return found


def entries_of(project: Path, branch: str) -> list[str]:
    tree = json.loads(run_workbench("tree", "--format", "json", cwd=project).stdout)
    return [e["type"] for e in tree["entries"] if e["branch"] == branch]


def wait_until(condition: Any, timeout: float = 90.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_ctrl_c_stops_every_run_and_no_process_of_the_sweep_survives(
    tmp_path: Path, server: OpenAIServer
) -> None:
    project = make_project(tmp_path / "repo")
    slow = Reply(text="word " * 400, delay_s=0.05)  # 20 s of streaming
    server.add(*[slow] * 4)
    sweep = subprocess.Popen(
        workbench_command(
            "sweep",
            "--api-base",
            server.url,
            "--api-key",
            "none",
            "--variant",
            "model=openai/a",
            "--variant",
            "model=openai/b",
            "--jobs",
            "2",
            "--",
            "tell a long story",
        ),
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    needle = f"WORKBENCH_SWEEP_RUN={sweep.pid}-".encode()
    try:
        assert wait_until(lambda: len(server.requests) == 2), "both runs should be asking"
        assert len(marked(needle)) >= 2
        sweep.send_signal(signal.SIGINT)
        _, err = sweep.communicate(timeout=30)
    finally:
        if sweep.poll() is None:
            sweep.kill()
    assert sweep.returncode == 130, err
    assert marked(needle) == []
    shown = run_workbench("sweep", "--show", "sweep-1", "--format", "json", cwd=project)
    runs = json.loads(shown.stdout)["runs"]
    assert [r["outcome"] for r in runs] == ["aborted", "aborted"]
    assert "user" in entries_of(project, "sweep-1.a-1")


def kill_victim(body: dict[str, Any]) -> Reply:
    """The victim's child is killed with SIGKILL while it waits for its answer."""
    if body["model"] == "victim":
        for pid in marked(b"WORKBENCH_BRANCH_WRITER="):
            environ = Path(f"/proc/{pid}/environ").read_bytes()
            if b".victim-1\0" in environ:
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.5)
    return Reply(text="fine")


def test_a_child_killed_with_sigkill_fails_its_row_and_keeps_its_entries(
    tmp_path: Path, server: OpenAIServer
) -> None:
    project = make_project(tmp_path / "repo")
    server.add(*[kill_victim] * 4)
    done = run_workbench(
        "sweep",
        "--api-base",
        server.url,
        "--api-key",
        "none",
        "--variant",
        "model=openai/victim",
        "--variant",
        "model=openai/fine",
        "--format",
        "json",
        "--",
        "hello",
        cwd=project,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    runs = {r["variant"]: r for r in json.loads(done.stdout)["runs"]}
    assert runs["victim"]["outcome"] == "failed"
    assert runs["fine"]["outcome"] == "done"
    assert "user" in entries_of(project, "sweep-1.victim-1")


def test_a_run_past_its_time_limit_is_ended_and_marked_timeout(
    tmp_path: Path, server: OpenAIServer
) -> None:
    project = make_project(tmp_path / "repo")
    server.add(Reply(text="word " * 400, delay_s=0.1))  # 40 s of streaming
    started = time.monotonic()
    done = run_workbench(
        "sweep",
        "--api-base",
        server.url,
        "--api-key",
        "none",
        "--model",
        "openai/slow",
        "--timeout",
        "8",
        "--format",
        "json",
        "--",
        "tell a long story",
        cwd=project,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    [run] = json.loads(done.stdout)["runs"]
    assert run["outcome"] == "timeout"
    assert time.monotonic() - started < 35
