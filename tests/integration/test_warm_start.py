"""Headless runs with a litellm model go through a warm interpreter
(workbench.processes.forkserver): output, stdin, exit codes and signals must behave exactly as in
a plain process."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.openai_server import OpenAIServer, Reply, Status
from support.processes import wait_group_gone
from support.workbench_process import run_workbench, workbench_command

from workbench.processes import forkserver
from workbench.processes.forkserver import WARM_UP


@pytest.fixture
def warm(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Warm start on, for this test's own agent folder; the server is stopped afterwards."""
    monkeypatch.setenv("WORKBENCH_WARM_START", "1")
    path = forkserver.socket_path(WARM_UP, os.environ)
    yield path
    assert forkserver.stop(WARM_UP, os.environ), "no warm server was running"
    deadline = time.monotonic() + 5
    while path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not path.exists()


def model_args(server: OpenAIServer) -> list[str]:
    return ["--model", "openai/warm", "--api-base", server.url, "--api-key", "k"]


def marker_call() -> Reply:
    command = "echo child=${WORKBENCH_WARM_CHILD:-none}"
    return Reply(tool_calls=[{"name": "bash", "arguments": {"command": command}}])


def test_runs_start_a_warm_server_then_reuse_it(project, server, warm):
    server.add(marker_call(), Reply(text="first answer"), marker_call(), Reply(text="second"))
    first = run_workbench("-p", *model_args(server), "one", cwd=project, timeout=90)
    assert (first.returncode, first.stdout, first.stderr) == (0, "first answer\n", "")
    assert warm.exists(), "the first run left a warm server behind for the next"
    second = run_workbench("-p", *model_args(server), cwd=project, stdin="two from stdin")
    assert (second.returncode, second.stdout) == (0, "second\n")
    tool_outputs = [r["messages"][-1]["content"] for r in server.requests[1::2]]
    assert tool_outputs == ["child=1\n\nExit code: 0"] * 2, "both ran in a forked warm child"
    assert server.requests[2]["messages"][1]["content"] == "two from stdin"
    assert server.requests[2]["messages"][0]["content"].endswith(f"Working folder: {project}\n")


def test_errors_exit_codes_and_signals_pass_through(project, server, warm):
    server.add(Status(401, "bad key"))
    failed = run_workbench("-p", *model_args(server), "hi", cwd=project, timeout=90)
    assert failed.returncode == 1 and failed.stdout == ""
    assert "bad key" in failed.stderr

    command = "echo $$ > pgid; sleep 60 & sleep 60"
    server.add(Reply(tool_calls=[{"name": "bash", "arguments": {"command": command}}]))
    client = subprocess.Popen(
        workbench_command("--mode", "json", *model_args(server), "go"),
        cwd=project,
        stdout=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    while not (project / "pgid").exists():
        time.sleep(0.05)
    time.sleep(0.1)
    pgid = int((project / "pgid").read_text())
    client.send_signal(signal.SIGTERM)
    out, _ = client.communicate(timeout=15)
    assert client.returncode == 128 + signal.SIGTERM
    assert '"stop_reason": "aborted"' in out.splitlines()[-1]
    assert wait_group_gone(pgid) == []


def test_a_killed_client_takes_its_child_down(project, server, warm):
    command = "echo $$ > pgid; sleep 60"
    server.add(Reply(tool_calls=[{"name": "bash", "arguments": {"command": command}}]))
    client = subprocess.Popen(
        # unboxed: `$PPID` in a box is the box's own process id, not the run's
        workbench_command("-p", "--sandbox", "off", *model_args(server), "go"),
        cwd=project,
        stdout=subprocess.DEVNULL,
        env=os.environ.copy(),
    )
    while not (project / "pgid").exists():
        time.sleep(0.05)
    time.sleep(0.1)
    client.kill()
    client.wait()
    assert wait_group_gone(int((project / "pgid").read_text())) == []


def test_a_killed_warm_child_makes_the_client_exit_as_killed(project, server, warm):
    command = "echo $PPID > child; sleep 60"
    server.add(Reply(tool_calls=[{"name": "bash", "arguments": {"command": command}}]))
    client = subprocess.Popen(
        # unboxed: `$PPID` in a box is the box's own process id, not the run's
        workbench_command("-p", "--sandbox", "off", *model_args(server), "go"),
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    while not (project / "child").exists():
        time.sleep(0.05)
    time.sleep(0.1)
    os.kill(int((project / "child").read_text()), signal.SIGKILL)  # the run, not the client
    _, err = client.communicate(timeout=15)
    assert client.returncode == 128 + signal.SIGKILL, err
    assert "without an exit code" not in err


def test_a_gpt_4o_reply_cut_off_or_without_usage_stays_offline(project, server, warm):
    """litellm counts the tokens of a reply that reported no usage with the model's tiktoken
    encoding, which it would download; the network guard refuses that in every test process."""
    model = ["--model", "openai/gpt-4o-mini", "--api-base", server.url, "--api-key", "k"]
    server.add(Reply(text="This answer stops right here", cut_after=4))
    cut = run_workbench("-p", "--no-session", *model, "hi", cwd=project, timeout=90)
    assert (cut.returncode, cut.stdout) == (1, "")
    assert cut.stderr.startswith(
        "workbench: the model's reply was cut off: the stream ended without a finish reason\n"
        "  hint: its first 18 characters are kept"
    )
    server.add(Reply(text="An answer without usage", usage=None))
    bare = run_workbench("-p", "--no-session", *model, "hi", cwd=project)
    assert (bare.returncode, bare.stdout, bare.stderr) == (0, "An answer without usage\n", "")
