"""Fixtures for the Workbench wiring tests: a real git project with skills, open workbenches."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from support.git_project import git, make_project
from support.opened_workbench import Opened
from support.skill_trees import write_tree

from workbench.runtime import Workbench, WorkbenchOptions


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git project with a local identity, two files and the example skill graph, committed."""
    root = make_project(tmp_path / "project")
    write_tree(root / ".pi" / "skills")
    git(root, "add", "--all")
    git(root, "commit", "--quiet", "-m", "skills")
    return root


@pytest.fixture
async def opened() -> AsyncIterator[Callable[..., Awaitable[Opened]]]:
    """Opens workbenches (closed after the test) and records each one's events."""
    made: list[Workbench] = []

    async def open_workbench(project: Path, model: str = "demo", **options: Any) -> Opened:
        workbench = await Workbench.open(WorkbenchOptions(cwd=project, model=model, **options))
        made.append(workbench)
        events: list[Any] = []
        workbench.subscribe(events.append)
        return Opened(workbench, events)

    yield open_workbench
    for workbench in made:
        await workbench.close()
