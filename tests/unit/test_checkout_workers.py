"""A fork's worktree is checked out by one git worker per idle core: git's parallel checkout is
quicker only where cores are free, and costs CPU for each worker it starts."""

from __future__ import annotations

import os

import pytest

from workbench.sessions.workspaces.workspace import checkout_workers


@pytest.mark.parametrize(
    ("cores", "load", "workers"),
    [(2, 0.2, "2"), (2, 0.9, "1"), (2, 2.5, "1"), (8, 2.0, "6"), (1, 0.0, "1")],
)
def test_one_git_worker_per_idle_core(
    cores: int, load: float, workers: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    assert checkout_workers() == workers


def test_without_a_load_average_git_picks_one_worker_per_core(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def unknown() -> tuple[float, float, float]:
        raise OSError("no load average")

    monkeypatch.setattr(os, "getloadavg", unknown)
    assert checkout_workers() == "0"
