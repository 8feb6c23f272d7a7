"""Fixtures for the app's Pilot and snapshot tests: a real project, a real Workbench, the app.

The project is a git repository holding the example skill graph and this repository's settings,
so the app opens exactly what `workbench` opens in a checkout. Models are `scripted:` files (or
the offline demo); nothing reaches a network.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tuitools import ROOT

from workbench.runtime import Workbench, WorkbenchOptions
from workbench.tui.app import WorkbenchApp

AppFactory = Callable[..., WorkbenchApp]


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git project (local identity, one commit) with the example skills and settings."""
    folder = tmp_path / "project"
    shutil.copytree(ROOT / "skills", folder / "skills")
    (folder / ".pi").mkdir()
    shutil.copy(ROOT / ".pi" / "settings.json", folder / ".pi" / "settings.json")
    (folder / "README.md").write_text("demo project\n")
    git(folder, "init", "--quiet", "--initial-branch=main")
    git(folder, "config", "user.name", "Test User")
    git(folder, "config", "user.email", "test@example.com")
    git(folder, "add", "--all")
    git(folder, "commit", "--quiet", "-m", "initial")
    return folder


@pytest.fixture
def script(project: Path) -> Callable[..., str]:
    """Write a scripted model's turns into the project; returns the model string."""

    def write(*turns: dict[str, Any], name: str = "turns.json", **extra: Any) -> str:
        body: Any = {"turns": list(turns), **extra} if extra else list(turns)
        (project / name).write_text(json.dumps(body))
        return f"scripted:{name}"

    return write


@pytest.fixture
def make_app(project: Path) -> AppFactory:
    """An app on `project` with a model (default: the offline demo); stable for pictures."""

    def make(model: str = "demo", pictures: bool = True, **options: Any) -> WorkbenchApp:
        async def open_workbench() -> Workbench:
            return await Workbench.open(WorkbenchOptions(cwd=project, model=model, **options))

        app = WorkbenchApp(open_workbench, cursor_blink=False, pictures=pictures)
        app.animation_level = "none"
        return app

    return make
