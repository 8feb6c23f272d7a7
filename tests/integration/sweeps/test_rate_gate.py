"""The runs of a sweep share one rate limiter: a 429 answered to one run holds back the others'
requests to the same provider until its Retry-After has passed."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from support.git_project import make_project
from support.openai_server import OpenAIServer, Reply, Status
from support.workbench_process import run_workbench

from workbench.agent.models.rate_gate import GATE_VARIABLE

RETRY_AFTER_S = 5.0


class OneRateLimited:
    """`limited`'s first request is answered 429 once `other` is asking too; `other`'s first
    answer (a tool call) waits until the limit is on the gate, so its next request starts after
    the 429. Times are the server's."""

    def __init__(self, gate: Path) -> None:
        self.gate = gate
        self.other_asking = threading.Event()
        self.limited_at: float | None = None
        self.saw_hold = False
        self.asked: dict[str, list[float]] = {"limited": [], "other": []}

    def held(self) -> bool:
        return any(float(f.read_text() or 0) > time.time() for f in self.gate.glob("*"))

    def __call__(self, body: dict[str, Any]) -> Reply | Status:
        model = str(body["model"])
        self.asked[model].append(time.time())
        if model == "limited" and self.limited_at is None:
            self.other_asking.wait(30)
            self.limited_at = time.time()
            return Status(429, "slow down", retry_after=RETRY_AFTER_S)
        if model == "other" and len(self.asked["other"]) == 1:
            self.other_asking.set()
            deadline = time.monotonic() + 10
            while not self.held() and time.monotonic() < deadline:
                time.sleep(0.05)
            self.saw_hold = self.held()
            args = {"path": "other.txt", "content": "ok\n"}
            return Reply(tool_calls=[{"name": "write", "arguments": args}])
        return Reply(text=f"{model} done")


def test_a_429_to_one_run_holds_back_the_other_runs_against_the_same_provider(
    tmp_path: Path, server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = make_project(tmp_path / "repo")
    gate = tmp_path / "gate"
    monkeypatch.setenv(GATE_VARIABLE, str(gate))  # else the sweep makes (and removes) its own
    answers = OneRateLimited(gate)
    server.add(*[answers] * 6)
    done = run_workbench(
        "sweep",
        "--api-base",
        server.url,
        "--api-key",
        "none",
        "--variant",
        "model=openai/limited",
        "--variant",
        "model=openai/other",
        "--jobs",
        "2",
        "--format",
        "json",
        "--",
        "write your file",
        cwd=project,
    )
    assert done.returncode == 0, done.stderr
    runs = {r["variant"]: r for r in json.loads(done.stdout)["runs"]}
    assert runs["limited"]["outcome"] == runs["other"]["outcome"] == "done"
    assert answers.limited_at is not None and answers.saw_hold
    # The other run's second request waited for the limit the first run was given.
    [_, after_limit] = answers.asked["other"]
    assert after_limit >= answers.limited_at + RETRY_AFTER_S - 0.1
    assert answers.asked["limited"][1] >= answers.limited_at + RETRY_AFTER_S - 0.1
