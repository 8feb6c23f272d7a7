"""Integration fixtures: the local OpenAI-compatible server and real workbench processes."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support.openai_server import OpenAIServer
from support.workbench_process import RpcProcess

from workbench.processes import forkserver


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as running:
        yield running


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty project folder with an empty `.git` folder as its marker: project-root and
    AGENTS.md discovery stop here, so nothing above it leaks in. git itself sees no repository
    (tests that need one build it, as tests/integration/sessions do)."""
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / ".git").mkdir()
    return folder


@pytest.fixture
def rpc_process() -> Iterator[Callable[..., RpcProcess]]:
    started: list[RpcProcess] = []

    def start(*args: str, cwd: Path) -> RpcProcess:
        process = RpcProcess(*args, cwd=cwd)
        started.append(process)
        return process

    yield start
    for process in started:
        if process.process.poll() is None:
            process.close(timeout=5)


@pytest.fixture
def warm(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Warm start on, for this test's own agent folder (its socket's path): a server the test
    starts is stopped afterwards, not left idling for minutes beside the next tests."""
    monkeypatch.setenv("WORKBENCH_WARM_START", "1")
    path = forkserver.socket_path(forkserver.WARM_UP, os.environ)
    yield path
    forkserver.stop(forkserver.WARM_UP, os.environ)
    deadline = time.monotonic() + 5
    while path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
