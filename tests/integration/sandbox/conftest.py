"""Sandbox tests run the real bubblewrap. Outside CI they skip where it cannot run; under CI
(`CI=true`, where `.ci/run` installs it) they fail instead.

Their home and "outside" folders are under /var/tmp, never /tmp: the box has a private /tmp, so
a test of a secret or a write under /tmp would pass whatever the box did.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.ci import missing
from support.git_project import make_project
from support.sandbox_dirs import SECRET

from workbench.sandbox.detect import bwrap_problem


@pytest.fixture(autouse=True)
def bwrap_runs() -> None:
    problem = bwrap_problem()
    if problem is None:
        return
    missing(problem)


def _outside_tmp(prefix: str) -> Path:
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir="/var/tmp")).resolve()
    assert not folder.is_relative_to("/tmp")
    assert not folder.is_relative_to(Path(tempfile.gettempdir()).resolve())
    return folder


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder outside the project, not under /tmp."""
    folder = _outside_tmp("workbench-outside-")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A home, not under /tmp, with a fake `~/.ssh/id_rsa` and `~/.aws/credentials`."""
    folder = _outside_tmp("workbench-home-")
    (folder / ".ssh").mkdir()
    (folder / ".ssh" / "id_rsa").write_text(SECRET)
    (folder / ".aws").mkdir()
    (folder / ".aws" / "credentials").write_text(SECRET)
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(folder / ".pi" / "agent"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def work() -> Iterator[Path]:
    """A git project, not under /tmp."""
    folder = _outside_tmp("workbench-project-")
    make_project(folder)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
