"""`workbench sweep --executor ray` against a real local Ray cluster of 2 CPUs, started once for
the module with a HOME and a working folder of its own: each run is a Ray task that pulls the
session from the sweep's git remote, runs its branch and pushes it back; the driver brings the
entries and files back. Nothing works only because the driver and the workers share a disk."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import netguard
from support.ci import missing
from support.eval_answers import FOLDER, answering, eval_project
from support.git_project import git, make_project, snapshot
from support.openai_server import OpenAIServer, Reply
from support.workbench_process import run_workbench, workbench_command

from workbench.agent.models.rate_gate import RateGate

pytestmark = pytest.mark.xdist_group("ray")  # one cluster for the module, on one worker
USAGE = {"prompt_tokens": 120, "completion_tokens": 30}
LOCAL_RAY = {
    "RAY_AUTH_MODE": "disabled",
    "RAY_USAGE_STATS_ENABLED": "0",
    "RAY_USAGE_STATS_REPORT_URL": "http://127.0.0.1:9/",
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",  # one machine: every Ray process on loopback
    "RAY_agent_register_timeout_ms": "120000",  # a loaded machine starts its agents slowly
}
RAYS_OWN_LOOKUPS = ("'169.254.169.254'", "'metadata.google.internal'")
"""What Ray's dashboard asks whatever the settings (which cloud it runs on): the tests' network
guard refuses it, in the cluster's own guard log, checked to hold nothing else."""


class Cluster:
    def __init__(self, address: str, home: Path, folder: Path) -> None:
        self.address, self.home, self.folder = address, home, folder


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def needs_ray() -> None:
    if importlib.util.find_spec("ray") is None:
        missing("ray is not installed (pip install -e '.[dev,ray]')")


@pytest.fixture(scope="module")
def ray_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """`ray start --head --block`, its processes in a group of their own, ended at the end."""
    needs_ray()
    home, folder = tmp_path_factory.mktemp("worker-home"), tmp_path_factory.mktemp("worker-cwd")
    port = free_port()
    env = {
        **os.environ,
        **LOCAL_RAY,
        "HOME": str(home),
        "PI_CODING_AGENT_DIR": str(home / ".pi" / "agent"),
        "OPENAI_API_KEY": "none",  # the workers' own key: the driver never sends one
        netguard.LOG_VARIABLE: str(folder / "netguard.log"),
    }
    log = folder / "ray.log"
    with open(log, "wb") as out:
        head = subprocess.Popen(
            [
                *(str(Path(sys.executable).parent / "ray"), "start", "--head", "--block"),
                *("--num-cpus", "2", "--port", str(port)),
                *("--include-dashboard", "false", "--disable-usage-stats"),
            ],
            cwd=folder,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 120
        while b"Ray runtime started" not in log.read_bytes():
            assert head.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        yield Cluster(f"127.0.0.1:{port}", home, folder)
        guarded = (folder / "netguard.log").read_text().splitlines()
        assert [line for line in guarded if not line.endswith(RAYS_OWN_LOOKUPS)] == []
    finally:
        head.send_signal(signal.SIGTERM)
        try:
            head.wait(60)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(head.pid, signal.SIGKILL)


def per_model(body: dict[str, Any]) -> Reply:
    """Each model writes `<model>.txt` (`ok` for good, `not ok` for bad), then answers."""
    model = str(body["model"])
    if body["messages"][-1]["role"] == "tool":
        return Reply(text=f"{model} wrote it", usage=USAGE)
    args = {"path": f"{model}.txt", "content": "ok\n" if model == "good" else "not ok\n"}
    return Reply(tool_calls=[{"name": "write", "arguments": args}], usage=USAGE)


def entries_of(project: Path, branch: str) -> list[str]:
    tree = json.loads(run_workbench("tree", "--format", "json", cwd=project).stdout)
    return [e["type"] for e in tree["entries"] if e["branch"] == branch]


def test_each_run_is_a_ray_task_on_a_worker_of_its_own_and_comes_back_through_git(
    tmp_path: Path, server: OpenAIServer, ray_cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in LOCAL_RAY.items():
        monkeypatch.setenv(key, value)
    project = make_project(tmp_path / "repo")
    (project / "notes.txt").write_text("mine, uncommitted\n")
    before = snapshot(project)
    del before["branches"]
    server.add(*[per_model] * 8)
    done = run_workbench(
        "sweep",
        *("--executor", "ray", "--ray-address", ray_cluster.address),
        *("--api-base", server.url),
        *("--variant", "model=openai/good", "--variant", "model=openai/bad"),
        *("--check", 'echo "$HOME $PWD"; grep -q "^ok" *.txt'),
        *("--format", "json", "--", "write your file"),
        cwd=project,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    runs = {r["variant"]: r for r in json.loads(done.stdout)["runs"]}
    assert runs["good"]["check"]["passed"] is True
    assert runs["bad"]["check"]["passed"] is False
    for variant, run in runs.items():
        assert run["outcome"] == "done"
        assert run["tokens"] == {"input": 240, "output": 60, "cache_read": 0, "cache_write": 0}
        assert run["files_changed"] == 1 and run["lines_added"] == 1
        # The check ran on the worker: its HOME, a folder of its own, not the driver's worktree.
        home, folder = run["check"]["tail"].splitlines()[0].split(" ")
        assert home == str(ray_cluster.home)
        assert not folder.startswith(str(project)) and not folder.startswith(str(tmp_path))
        # Brought back: the branch's entries (the run's, and the checkpoint of its files) and
        # its files, on its project branch (checked out here when the branch is first used).
        entries = entries_of(project, f"sweep-1.{variant}-1")
        assert entries.count("assistant") == 2 and entries[-1] == "checkpoint", entries
        branch = f"refs/heads/wb/*/sweep-1.{variant}-1"
        [files] = git(project, "for-each-ref", "--format=%(refname)", branch).split()
        written = git(project, "show", f"{files}:{variant}.txt") + "\n"
        assert written == ("ok\n" if variant == "good" else "not ok\n")
    after = snapshot(project)
    del after["branches"]
    assert after == before


def test_a_hold_on_one_nodes_gate_reaches_the_gate_of_every_other_node_through_the_keeper(
    tmp_path: Path, ray_cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a 429 writes in one node's gate folder reaches the others' through the sweep's
    keeper, a named actor on the cluster (two folders stand for two nodes' temporary folders:
    without the keeper, each node's runs would go on asking)."""
    for key, value in LOCAL_RAY.items():
        monkeypatch.setenv(key, value)
    from workbench.sweeps.cluster.executor import import_ray
    from workbench.sweeps.cluster.gate import Mirror, start_keeper

    ray = import_ray(local=False)
    ray.init(address=ray_cluster.address, log_to_driver=False)
    one, two = RateGate(tmp_path / "node-1"), RateGate(tmp_path / "node-2")
    provider = "http://127.0.0.1:9/v1"

    def reaches(gate: RateGate, at_least: float) -> None:
        deadline = time.monotonic() + 60
        while gate.until(provider) < at_least:
            assert time.monotonic() < deadline, f"no hold reached {gate.folder}"
            time.sleep(0.05)

    try:
        keeper = start_keeper(ray, f"workbench-rate-{tmp_path.name}")
        mirrors = [Mirror(ray, gate, keeper) for gate in (one, two)]
        for mirror in mirrors:
            mirror.start()
        try:
            one.hold(provider, 60)  # a 429 on node 1
            reaches(two, time.time() + 50)
            two.hold(provider, 300)  # a longer one on node 2, later
            reaches(one, time.time() + 250)
        finally:
            for mirror in mirrors:
                mirror.stop()
    finally:
        ray.shutdown()


def test_without_ray_the_ray_executor_says_how_to_install_it(
    tmp_path: Path, server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    hidden = tmp_path / "no-ray" / "ray"
    hidden.mkdir(parents=True)
    (hidden / "__init__.py").write_text("raise ImportError('No module named ray')\n")
    monkeypatch.setenv("PYTHONPATH", f"{hidden.parent}{os.pathsep}{os.environ['PYTHONPATH']}")
    project = make_project(tmp_path / "repo")
    done = run_workbench(
        "sweep", "--executor", "ray", "--api-base", server.url, "--", "hi", cwd=project
    )
    assert done.returncode == 2
    assert "--executor ray needs Ray, which is not installed" in done.stderr
    assert "pip install 'workbench[ray]'" in done.stderr
    assert server.requests == []


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


def test_ctrl_c_on_a_local_ray_instance_leaves_no_process_and_keeps_what_the_runs_did(
    tmp_path: Path, server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No address: the sweep starts a Ray instance of its own, and a Ctrl+C ends it, its tasks
    and their children."""
    needs_ray()
    for key, value in {**LOCAL_RAY, "OPENAI_API_KEY": "none"}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    guarded = tmp_path / "netguard.log"
    monkeypatch.setenv(netguard.LOG_VARIABLE, str(guarded))
    mark = f"WORKBENCH_TEST_RAY_SWEEP={tmp_path.name}"
    monkeypatch.setenv(*mark.split("="))
    project = make_project(tmp_path / "repo")
    server.add(*[Reply(text="word " * 600, delay_s=0.05)] * 4)  # 30 s of streaming each
    sweep = subprocess.Popen(
        workbench_command(
            "sweep",
            *("--executor", "ray", "--api-base", server.url),
            *("--variant", "model=openai/a", "--variant", "model=openai/b"),
            *("--", "tell a long story"),
        ),
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 180
        while len(server.requests) < 2:
            assert sweep.poll() is None and time.monotonic() < deadline, sweep.communicate()
            time.sleep(0.1)
        sweep.send_signal(signal.SIGINT)
        _, err = sweep.communicate(timeout=120)
    finally:
        if sweep.poll() is None:
            sweep.kill()
    assert sweep.returncode == 130, err
    assert marked(mark.encode()) == []  # Ray's processes, its tasks and their children: gone
    shown = run_workbench("sweep", "--show", "sweep-1", "--format", "json", cwd=project)
    assert [r["outcome"] for r in json.loads(shown.stdout)["runs"]] == ["aborted", "aborted"]
    assert "user" in entries_of(project, "sweep-1.a-1")  # sent back by its task, brought back
    lines = guarded.read_text().splitlines() if guarded.exists() else []
    assert [line for line in lines if not line.endswith(RAYS_OWN_LOOKUPS)] == []


def test_an_eval_runs_on_ray_with_its_case_files_and_is_graded_when_its_branches_come_back(
    tmp_path: Path, server: OpenAIServer, ray_cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`workbench eval --executor ray`: each run's worktree is prepared and committed on its
    branch, so a worker that only pulls the branch has the case's files; the checks, the
    grader and the uptake read the branch once it is back."""
    for key, value in LOCAL_RAY.items():
        monkeypatch.setenv(key, value)
    project = eval_project(tmp_path / "repo")
    server.add(*[answering] * 12)
    done = run_workbench(
        "eval",
        FOLDER,
        *("--executor", "ray", "--ray-address", ray_cluster.address),
        *("--model", "openai/agent", "--grader", "openai/grader"),
        *("--api-base", server.url, "--api-key", "none"),
        *("--repeat", "1", "--format", "json"),
        cwd=project,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    assert "2 runs, on Ray" in done.stderr
    report = json.loads(done.stdout)
    runs = {run["configuration"]: run for run in report["runs"]}
    for run in runs.values():
        assert run["outcome"] == "done", run
        verdicts = {g["text"]: g["verdict"] for g in run["graded"]}
        assert verdicts["test -f hint.txt"] == "passed"  # the case's file reached the worker
    assert runs["with_skill"]["passed"] is True and runs["without_skill"]["passed"] is False
    assert runs["with_skill"]["uptake"]["loaded"] is True
    assert runs["without_skill"]["uptake"]["loaded"] is False
    summary = {row["configuration"]: row["pass_rate"] for row in report["summary"]}
    assert summary == {"with_skill": 1.0, "without_skill": 0.0}
