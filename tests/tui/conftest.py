"""Fixtures for the app's Pilot and snapshot tests: a real project, a real Workbench, the app.

The project is a git repository holding the example skill graph and this repository's settings,
so the app opens exactly what `workbench` opens in a checkout. Models are `scripted:` files (or
the offline demo); nothing reaches a network.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from support.app_pilot import build_app, make_project, write_script

from workbench.tui.app import WorkbenchApp
from workbench.tui.components import reply

AppFactory = Callable[..., WorkbenchApp]


@pytest.fixture(autouse=True)
def uncrowded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The app sees a machine that is not crowded, however busy the one running the tests is: on
    a crowded one a streaming reply is written in other steps (`reply.crowded`); the tests of
    that say so themselves."""
    monkeypatch.setattr(reply, "crowded", lambda: False)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git project (local identity, one commit) with the example skills and settings."""
    return make_project(tmp_path / "project")


@pytest.fixture
def script(project: Path) -> Callable[..., str]:
    """Write a scripted model's turns into the project; returns the model string."""
    return lambda *turns, **extra: write_script(project, *turns, **extra)


@pytest.fixture
def make_app(project: Path) -> AppFactory:
    """An app on `project` with a model (default: the offline demo); stable for pictures."""
    return lambda model="demo", **options: build_app(project, model=model, **options)
