"""Headless runs with a litellm model go through a warm interpreter
(workbench.processes.forkserver): output, stdin, exit codes and signals must behave exactly as in
a plain process. With none running, a run starts one for the runs after it and runs itself."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import spare_warm_up
from support.openai_server import OpenAIServer, Reply, Status
from support.processes import running_children, wait_group_gone
from support.workbench_process import run_workbench, workbench_command

from workbench.config import agent_dir
from workbench.processes import forkserver
from workbench.processes.forkserver import SERVER_MODULE, WARM_UP


@pytest.fixture
def warm(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Warm start on, for this test's own agent folder; the server is stopped afterwards."""
    monkeypatch.setenv("WORKBENCH_WARM_START", "1")
    path = forkserver.socket_path(WARM_UP, os.environ)
    yield path
    serving(path)
    assert forkserver.stop(WARM_UP, os.environ), "no warm server was running"
    deadline = time.monotonic() + 5
    while path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not path.exists()


def serving(path: Path) -> None:
    """Wait until the warm server started for this test (at `path`) accepts runs."""
    assert forkserver.wait_serving(WARM_UP, os.environ, timeout_s=90), "no warm server came up"
    assert path.exists()


def warmed(path: Path) -> None:
    """This test's warm server started and serving, as a user's earlier run leaves it."""
    forkserver.start_soon(WARM_UP, os.environ)
    serving(path)


def model_args(server: OpenAIServer) -> list[str]:
    return ["--model", "openai/warm", "--api-base", server.url, "--api-key", "k"]


WITH_ATEXIT = (
    "import atexit, runpy, sys; atexit.register(print, 'torn down', file=sys.stderr); "
    "sys.argv[0] = 'workbench'; runpy.run_module('workbench', run_name='__main__')"
)
"""`workbench ARGS` with an exit handler, which the interpreter's teardown would run."""


def program_imports(importtime: str) -> set[str]:
    """The modules `-X importtime` shows imported after Python's own start-up (`site`, with the
    tests' `sitecustomize`): what the program itself imported."""
    names = [line.rsplit("|", 1)[1] for line in importtime.splitlines() if "|" in line]
    return {name.strip() for name in names[names.index(" site") + 1 :]}


def marker_call() -> Reply:
    command = "echo child=${WORKBENCH_WARM_CHILD:-none}"
    return Reply(tool_calls=[{"name": "bash", "arguments": {"command": command}}])


def waiting_server(pid: int) -> bool:
    """Whether process `pid` is a warm server that sleeps in a read of a pipe (the kernel's wait
    channel says so)."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        return (
            SERVER_MODULE.encode() in command and "pipe" in Path(f"/proc/{pid}/wchan").read_text()
        )
    except OSError:
        return False


def test_a_run_starts_a_warm_server_for_the_next_runs_without_waiting_for_it(
    project, server, warm, monkeypatch
):
    held = Reply(text="first answer", hold_after=1)
    server.add(marker_call(), held, marker_call(), Reply(text="second"))
    first = subprocess.Popen(
        workbench_command("-p", *model_args(server), "one"),
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    try:
        deadline = time.monotonic() + 60
        while len(server.requests) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(server.requests) == 2, "the run did not get to its second request"
        # the run started its server, which warms up only once the run has exited (both
        # importing litellm at once took the run's CPU): it waits on the run's pipe meanwhile
        while not any(map(waiting_server, running_children(first.pid))):
            assert time.monotonic() < deadline, "the warm server did not wait for the run"
            time.sleep(0.05)
        assert not warm.exists(), "the warm server served while the run that started it ran"
    finally:
        held.release.set()
    out, err = first.communicate(timeout=60)
    assert (first.returncode, out, err) == (0, "first answer\n", "")
    serving(warm)  # the first run left a warm server starting for the next
    monkeypatch.setenv("PYTHONPROFILEIMPORTTIME", "1")  # what the client process imports
    second = run_workbench("-p", *model_args(server), cwd=project, stdin="two from stdin")
    assert (second.returncode, second.stdout) == (0, "second\n")
    imported = program_imports(second.stderr)
    assert "workbench.cli" in imported, "the measurement itself worked"
    assert "workbench.runtime" not in imported, "a warm run's client imported the runtime"
    dear = {"hashlib", "tempfile", "subprocess", "shutil"} & imported  # ~25 ms, not needed
    assert not dear, f"a warm run's client imported {sorted(dear)}"
    # the child reads the settings and picks the model: the client only finds the socket
    settings = {"workbench.config", "workbench.trust", "workbench.agent", "dataclasses"}
    assert not settings & imported, f"a warm run's client imported {sorted(settings & imported)}"
    assert "typing" not in imported, "a warm run's client imported typing (~5 ms)"
    server.add(Reply(text="third"))
    third = subprocess.run(
        [sys.executable, "-c", WITH_ATEXIT, "-p", *model_args(server), "three"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (third.returncode, third.stdout) == (0, "third\n")
    assert "torn down" not in third.stderr, "the client ran the interpreter's teardown (~6 ms)"
    tool_outputs = [r["messages"][-1]["content"] for r in server.requests[1::2]]
    assert tool_outputs == [
        "child=none\n\nExit code: 0",
        "child=1\n\nExit code: 0",
    ], "the first ran in its own process, the second in a forked warm child"
    assert server.requests[2]["messages"][1]["content"] == "two from stdin"
    assert server.requests[2]["messages"][0]["content"].endswith(f"Working folder: {project}\n")


def test_errors_exit_codes_and_signals_pass_through(project, server, warm):
    warmed(warm)
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
    warmed(warm)
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
    warmed(warm)
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
    warmed(warm)
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


def test_status_starts_the_warm_server_and_an_editors_agent_then_runs_in_it(
    project, server, warm, monkeypatch
):
    """`workbench status` starts the warm interpreter without waiting for it; an ACP agent
    spawned later answers `initialize` itself and hands the connection to a warm child."""
    monkeypatch.setenv("WORKBENCH_MODEL", "openai/warm")
    run_workbench("status", cwd=project)  # no session here: it fails, after starting the server
    deadline = time.monotonic() + 90
    while not warm.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert warm.exists(), "status left no warm server starting"
    command = "echo child=${WORKBENCH_WARM_CHILD:-none} told=${WORKBENCH_ACP_ANSWERED:-none}"
    server.add(
        Reply(tool_calls=[{"name": "bash", "arguments": {"command": command}}]),
        Reply(text="done"),
    )
    agent = subprocess.Popen(
        workbench_command("--mode", "acp", *model_args(server)),
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    assert agent.stdin is not None and agent.stdout is not None

    def ask(number: int, method: str, params: dict[str, object]) -> dict[str, object]:
        line = {"jsonrpc": "2.0", "id": number, "method": method, "params": params}
        agent.stdin.write(json.dumps(line) + "\n")
        agent.stdin.flush()
        while True:
            reply = json.loads(agent.stdout.readline())
            if reply.get("id") == number and "method" not in reply:
                return reply

    assert "result" in ask(1, "initialize", {"protocolVersion": 1})
    opened = ask(2, "session/new", {"cwd": str(project), "mcpServers": []})
    session = opened["result"]["sessionId"]  # type: ignore[index]
    text = [{"type": "text", "text": "go"}]
    done = ask(3, "session/prompt", {"sessionId": session, "prompt": text})
    assert done["result"] == {"stopReason": "end_turn"}
    agent.stdin.close()
    rest = agent.stdout.read()
    assert agent.wait(timeout=30) == 0
    assert '"id":1' not in rest.replace(" ", ""), "initialize was answered once"
    assert server.requests[-1]["messages"][-1]["content"].startswith("child=1 told=none")


def test_the_warm_server_leaves_after_the_idle_time_the_user_set(tmp_path):
    settings = agent_dir() / "settings.json"
    settings.write_text(json.dumps({"warm_start": {"idle_seconds": 1}}))
    socket = tmp_path / "warm.sock"
    command = [sys.executable, "-P", "-m", SERVER_MODULE, str(socket), "gc:collect"]
    server = subprocess.Popen(command, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    seen = False
    try:
        while server.poll() is None and not seen:
            seen = socket.exists()
            time.sleep(0.01)
        _, err = server.communicate(timeout=60)  # the default idle time is ten minutes
    finally:
        server.kill()
    assert (server.returncode, err) == (0, "")
    assert seen and not socket.exists()


def _spare(server: int, other_than: int = 0) -> int:
    """The child a warm server forked ahead of its next request (waited for)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        spares = [pid for pid in running_children(server) if pid != other_than]
        if spares:
            assert len(spares) == 1, f"more than one spare: {spares}"
            return spares[0]
        time.sleep(0.02)
    raise AssertionError("the warm server forked no spare child")


def _spare_server(socket_path: Path) -> subprocess.Popen[bytes]:
    """A warm server at `socket_path` whose warm-up is `spare_warm_up`'s, in its own group."""
    command = [sys.executable, "-P", "-m", SERVER_MODULE, str(socket_path), spare_warm_up.WARM_UP]
    tests = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([tests, os.environ["PYTHONPATH"]])}
    return subprocess.Popen(command, cwd=socket_path.parent, env=env, start_new_session=True)


def test_the_next_run_is_forked_and_prepared_before_its_request_and_leaves_with_the_server(
    tmp_path,
):
    socket = tmp_path / "warm.sock"
    server = _spare_server(socket)
    try:
        spare = _spare(server.pid)
        with open(os.devnull, "rb+") as null:
            stdio = (null.fileno(),) * 3
            run = forkserver.spawn(
                spare_warm_up.ENTRY,
                [],
                spare_warm_up.WARM_UP,
                cwd=tmp_path,
                env=os.environ,
                stdio=stdio,
                start=False,
                path=socket,
            )
        assert run is not None
        with run.connection:
            replies = run.pending + b"".join(iter(lambda: run.connection.recv(4096), b""))
        assert run.pid == spare, "the run was forked on its request, not ahead of it"
        assert json.loads(replies.splitlines()[-1]) == {"exit": 0}, "the spare was not prepared"
        next_spare = _spare(server.pid, other_than=spare)
        stop = forkserver.connect(socket)
        assert stop is not None
        with stop:
            stop.sendall(b'{"stop": true}\n')
            stop.recv(1)
        assert server.wait(timeout=60) == 0
        assert wait_group_gone(server.pid, timeout=30) == [], f"spare {next_spare} stayed"
    finally:
        server.kill()


def test_a_client_gone_before_its_run_answers_leaves_the_server_reachable(tmp_path):
    """A client that quits (Ctrl+C) right after its request: the child taking it over finds no
    one to answer and exits, and the server still serves the next run (the child once fell back
    into the server's own code on its way out and removed the server's socket)."""
    socket_path = tmp_path / "warm.sock"
    server = _spare_server(socket_path)
    try:
        spare = _spare(server.pid)
        request = {"entry": spare_warm_up.ENTRY, "argv": [], "cwd": str(tmp_path)}
        request["env"] = dict(os.environ)
        client = forkserver.connect(socket_path)
        assert client is not None
        with client, open(os.devnull, "rb+") as null:
            line = json.dumps(request).encode() + b"\n"
            socket.send_fds(client, [line], [null.fileno()] * 3)
        deadline = time.monotonic() + 60
        while spare in running_children(server.pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert spare not in running_children(server.pid), "the child did not leave"
        after = forkserver.connect(socket_path)
        assert after is not None, "the server's socket is gone"
        after.close()
        assert server.poll() is None
    finally:
        server.kill()
