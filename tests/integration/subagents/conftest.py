"""Sub-agent fixtures: warm start switched on for one test, its warm interpreter stopped after."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from workbench.processes import forkserver


@pytest.fixture
def warm(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Children start from a warm interpreter (this test's own); it is stopped afterwards."""
    monkeypatch.setenv("WORKBENCH_WARM_START", "1")
    path = forkserver.socket_path(forkserver.WARM_UP, os.environ)
    yield path
    assert forkserver.stop(forkserver.WARM_UP, os.environ), "no warm server was running"
    deadline = time.monotonic() + 5
    while path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
