"""Which warm interpreter a call means follows the environment it is given, so that a caller can
start, find or stop the one a process with another HOME or agent folder will use."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from workbench.processes import forkserver
from workbench.processes.forkserver import WARM_UP


def test_the_socket_is_the_one_of_the_environment_given_not_the_callers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = {**os.environ, "HOME": str(tmp_path / "other"), "PI_CODING_AGENT_DIR": ""}
    seen_from_here = forkserver.socket_path(WARM_UP, other)
    assert seen_from_here != forkserver.socket_path(WARM_UP, os.environ)
    monkeypatch.setenv("HOME", other["HOME"])
    monkeypatch.delenv("PI_CODING_AGENT_DIR")
    assert forkserver.socket_path(WARM_UP, os.environ) == seen_from_here
