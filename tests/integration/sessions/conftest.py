"""Fixtures for the conversation-tree tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.session_entries import make_project

from workbench.sessions.session import Session


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git project with a local identity and one commit."""
    return make_project(tmp_path / "project")


@pytest.fixture
def session(project: Path) -> Iterator[Session]:
    """A new session of `project`, closed after the test."""
    opened = Session.create(project)
    yield opened
    opened.close()
