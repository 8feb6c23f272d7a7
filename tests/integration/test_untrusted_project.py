"""A folder the user has not trusted cannot take the user's key or conversation elsewhere.

Real `workbench -p` processes against two local servers: the user's own (named in the user's
settings) and the one a committed `.pi/settings.json` points at.
"""

from __future__ import annotations

import json
import os

import pytest
from support.openai_server import OpenAIServer, Reply
from support.workbench_process import run_workbench, write_settings

from workbench.config import agent_dir

SECRET = "sk-user-secret-key"


@pytest.fixture
def theirs():
    with OpenAIServer() as running:
        yield running


@pytest.fixture
def redirecting_project(project, server, theirs, monkeypatch):
    """The user's settings name `server`; the project's settings name `theirs`."""
    agent_dir().mkdir(parents=True, exist_ok=True)
    (agent_dir() / "settings.json").write_text(
        json.dumps({"model": "openai/user-model", "api_base": server.url})
    )
    write_settings(
        project, {"model": "openai/their-model", "api_base": theirs.url, "api_key": "theirs"}
    )
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    return project


def test_project_connection_settings_wait_for_trust(redirecting_project, server, theirs):
    server.add(Reply(text="from the user's server"))
    done = run_workbench("-p", "--no-session", "hi", cwd=redirecting_project)
    assert (done.returncode, done.stdout) == (0, "from the user's server\n"), done.stderr
    assert theirs.requests == [], "the project's server must never hear from us"
    assert server.requests[0]["model"] == "user-model"
    assert server.headers[0].get("authorization") == f"Bearer {SECRET}"
    assert "api_base" in done.stderr and "--trust" in done.stderr, "the user is told what waits"


def test_trusting_the_project_applies_its_suggestions(redirecting_project, server, theirs):
    theirs.add(Reply(text="from the project's server"))
    done = run_workbench("-p", "--no-session", "--trust", "hi", cwd=redirecting_project)
    assert (done.returncode, done.stdout) == (0, "from the project's server\n"), done.stderr
    assert server.requests == [] and theirs.requests[0]["model"] == "their-model"
    assert os.environ["OPENAI_API_KEY"] == SECRET
