"""Which box a run gets: the user's choice, narrowed (never widened) by an untrusted project,
and what happens where bubblewrap cannot run."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.ci import missing
from support.workbench_process import write_user_settings

from workbench.agent.tools.bash import execute
from workbench.config import Settings, agent_dir
from workbench.errors import WorkbenchError
from workbench.sandbox import choose_sandbox, narrowest
from workbench.sandbox.choice import NETWORK_TOLD
from workbench.sandbox.detect import bwrap_problem
from workbench.tool import ToolContext


def project(tmp_path: Path, settings: dict[str, object] | None = None) -> Path:
    root = tmp_path / "project"
    (root / ".pi").mkdir(parents=True)
    (root / ".pi" / "settings.json").write_text(json.dumps(settings or {}))
    return root


@pytest.fixture
def no_bwrap(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """A machine without bubblewrap: an empty PATH for the probe."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # the probe's answer is kept per search path
    yield


@pytest.fixture
def with_bwrap() -> None:
    problem = bwrap_problem()
    if problem is not None:
        missing(problem)


def test_modes_only_narrow() -> None:
    assert narrowest("workspace+net", "strict", "off") == "strict"
    assert narrowest("workspace", None) == "workspace"
    assert narrowest() == "off"


def test_the_default_is_workspace_and_the_user_chooses(tmp_path: Path, with_bwrap: None) -> None:
    root = project(tmp_path)
    assert choose_sandbox(Settings.load(root)).policy.mode == "workspace"
    write_user_settings({"sandbox": {"mode": "workspace+net", "network": ["pypi.org"]}})
    chosen = choose_sandbox(Settings.load(root)).policy
    assert (chosen.mode, chosen.network) == ("workspace+net", ("pypi.org",))
    assert choose_sandbox(Settings.load(root), "off").policy.mode == "off"


def test_the_first_run_in_the_default_box_says_once_that_the_network_is_off(
    tmp_path: Path, with_bwrap: None
) -> None:
    root = project(tmp_path)
    (agent_dir() / NETWORK_TOLD).unlink()  # a new user (the tests' users were told)
    [told] = choose_sandbox(Settings.load(root)).notices
    assert "no network" in told and "pip install" in told and "sandbox.network" in told
    assert choose_sandbox(Settings.load(root)).notices == []  # once
    (agent_dir() / NETWORK_TOLD).unlink()
    assert choose_sandbox(Settings.load(root), "workspace").notices == []  # chosen: known


def test_an_untrusted_project_may_ask_for_stricter_never_looser(
    tmp_path: Path, with_bwrap: None
) -> None:
    strict = project(tmp_path / "a", {"sandbox": "strict"})
    choice = choose_sandbox(Settings.load(strict))
    assert choice.policy.mode == "strict"
    assert "the project asks for strict" in choice.notices[0]
    loose = project(tmp_path / "b", {"sandbox": {"mode": "off", "network": ["evil.example"]}})
    policy = choose_sandbox(Settings.load(loose)).policy
    assert (policy.mode, policy.network) == ("workspace", ())
    assert choose_sandbox(Settings.load(loose, trusted=True)).policy.mode == "off"


def test_an_unknown_mode_is_an_error_that_names_the_modes(tmp_path: Path) -> None:
    write_user_settings({"sandbox": "box"})
    with pytest.raises(WorkbenchError, match="unknown sandbox mode 'box'") as raised:
        choose_sandbox(Settings.load(project(tmp_path)))
    assert "workspace+net" in str(raised.value.hint)


def test_without_bubblewrap_the_default_falls_back_to_off_with_a_notice(
    tmp_path: Path, no_bwrap: None
) -> None:
    choice = choose_sandbox(Settings.load(project(tmp_path)))
    assert choice.policy.mode == "off"
    assert "bubblewrap (bwrap) is not installed" in choice.notices[0]
    assert "WITHOUT a box" in choice.notices[0]


async def test_without_bubblewrap_an_explicit_mode_refuses_commands(
    tmp_path: Path, no_bwrap: None
) -> None:
    root = project(tmp_path)
    choice = choose_sandbox(Settings.load(root), "workspace")
    assert "apt-get install bubblewrap" in choice.notices[0]
    with pytest.raises(WorkbenchError, match="refused to run the command") as raised:
        await execute({"command": "touch ran"}, ToolContext(root, sandbox=choice.policy))
    assert "sandbox.fallback" in str(raised.value.hint)
    assert not (root / "ran").exists()
    write_user_settings({"sandbox": {"mode": "workspace", "fallback": "off"}})
    assert choose_sandbox(Settings.load(root)).policy.mode == "off"
