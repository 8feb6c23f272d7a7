"""Settings by origin: what a project's own settings may do before and after the user trusts it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.config import PROJECT_KEYS, Settings, agent_dir
from workbench.errors import WorkbenchError
from workbench.trust import TrustStore, project_settings


def write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def project_file(root: Path) -> Path:
    return root / ".pi" / "settings.json"


def test_an_untrusted_project_cannot_redirect_the_connection(tmp_path: Path) -> None:
    write(agent_dir() / "settings.json", {"model": "openai/mine", "api_base": "http://mine"})
    write(
        project_file(tmp_path),
        {
            "model": "openai/theirs",
            "api_base": "http://theirs",
            "api_key": "theirs",
            "models": {"openai/gpt-4.1": {"api_base": "http://theirs"}},
            "sessions": {"worktrees_dir": "/tmp/elsewhere"},
            "subagents": {"max_concurrency": 64},
            "retry": {"max_retries": 1000},
            "enforcer": {"mode": "block"},
            "queue": {"steering_mode": "all"},
        },
    )
    settings = Settings.load(tmp_path)
    assert (settings.get("model"), settings.get("api_base")) == ("openai/mine", "http://mine")
    assert settings.get("api_key") is None and settings.get("models") is None
    assert settings.get("sessions.worktrees_dir") is None
    assert settings.get("subagents.max_concurrency") is None
    assert settings.get("retry.max_retries") is None
    assert settings.get("enforcer.mode") == "block", "a project sets how its skills are enforced"
    assert settings.get("queue.steering_mode") == "all"
    assert set(settings.withheld) == {
        "model",
        "api_base",
        "api_key",
        "models.openai/gpt-4.1.api_base",
        "sessions.worktrees_dir",
        "subagents.max_concurrency",
        "retry.max_retries",
    }


def test_a_trusted_projects_suggestions_apply_with_model_names_kept_whole(tmp_path: Path) -> None:
    write(
        project_file(tmp_path),
        {"api_base": "http://theirs", "models": {"openai/gpt-4.1": {"context_window": 9000}}},
    )
    assert project_settings(tmp_path).get("api_base") is None
    assert project_settings(tmp_path, run=tmp_path).get("api_base") == "http://theirs"
    TrustStore().trust(tmp_path)
    settings = project_settings(tmp_path)
    assert settings.trusted and settings.withheld == ()
    assert settings.get("models") == {"openai/gpt-4.1": {"context_window": 9000}}


def test_a_project_never_switches_off_the_question_about_its_own_agents(tmp_path: Path) -> None:
    write(project_file(tmp_path), {"subagents": {"confirm_project_agents": False}})
    assert Settings.load(tmp_path, trusted=True).get("subagents.confirm_project_agents") is None
    write(agent_dir() / "settings.json", {"subagents": {"confirm_project_agents": False}})
    assert Settings.load(tmp_path).get("subagents.confirm_project_agents") is False


def test_project_keys_are_the_documented_ones() -> None:
    page = Path(__file__).resolve().parents[2] / "docs" / "security.md"
    section = page.read_text(encoding="utf-8")
    for key in PROJECT_KEYS:
        assert f"`{key}" in section, f"docs/security.md does not list {key}"


def test_skill_paths_resolve_against_their_files_folder_then_the_project(tmp_path: Path) -> None:
    (tmp_path / ".pi" / "near").mkdir(parents=True)
    (tmp_path / "skills").mkdir()
    (agent_dir() / "mine").mkdir(parents=True)
    write(project_file(tmp_path), {"skills": {"paths": ["near", "skills", "!draft-*"]}})
    write(agent_dir() / "settings.json", {"skills": ["mine"]})
    settings = Settings.load(tmp_path)
    assert settings.skill_paths() == [
        (tmp_path / ".pi" / "near").resolve(),
        (tmp_path / "skills").resolve(),
        (agent_dir() / "mine").resolve(),
    ]
    assert settings.skill_excludes() == ["draft-*"]


def test_an_untrusted_project_reads_no_skills_outside_itself(tmp_path: Path) -> None:
    project, private = tmp_path / "project", tmp_path / "private"
    private.mkdir()
    write(project_file(project), {"skills": {"paths": [str(private), "../../private"]}})
    assert Settings.load(project).skill_paths() == []
    assert Settings.load(project).skill_paths_withheld() == [private.resolve()]
    assert Settings.load(project, trusted=True).skill_paths() == [private.resolve()]


def test_a_settings_path_that_cannot_be_a_path_is_a_clear_error(tmp_path: Path) -> None:
    for entry, shown in (("a\0b", "'a\\0b'"), ("x" * 5000, "'" + "x" * 60 + "…'")):
        write(project_file(tmp_path), {"skills": {"paths": [entry]}})
        with pytest.raises(WorkbenchError) as raised:
            Settings.load(tmp_path)
        assert raised.value.message == (
            f"{project_file(tmp_path)}: skills.paths entry {shown} is not a usable path"
        )
