"""pi's resource-loader and package-manager skill cases (badlogic/pi-mono,
packages/coding-agent/test/resource-loader.test.ts and package-manager.test.ts), restated in
our words, each with workbench's outcome. Where workbench differs on purpose the case says why.

pi's cases about prompts, themes, extensions, AGENTS.md/SYSTEM.md, npm and git packages,
extension-supplied resources (`extendResources`, `skillsOverride`) and its settings file's
persistence have no workbench counterpart and are not restated. The `+path`/`-path` cases pi
writes for extensions, themes and prompts are restated for skills, which pi treats the same way.

Agreement. resource-loader.test.ts has 8 skill cases: workbench agrees with 4 (extra Markdown
beside SKILL.md, project over user, a `-path` entry, named paths read alone), differs on purpose
on 1 (a loose `name.md`), and has no counterpart for 3 (`extendResources`, `noSkills` alone,
`skillsOverride`). Of package-manager.test.ts's 7 top-level skill cases it agrees with 6 and
differs on purpose on 1 (outside a repository). With skills.test.ts (28, test_pi_cases.py: 22)
and sdk-skills.test.ts (3: default discovery agrees; `--no-skills` and injected skills have no
counterpart), pi's 39 skill tests of the issue agree 27 times.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.config import agent_dir
from workbench.skills.discover import load_paths, load_project_skills
from workbench.skills.lint import lint


def skill(folder: Path, name: str | None = None, description: str = "d") -> Path:
    """Write `folder/SKILL.md` declaring `name` (the folder's own by default)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "SKILL.md"
    path.write_text(f"---\nname: {name or folder.name}\ndescription: {description}\n---\nBody\n")
    return path


def settings(file: Path, entries: list[str]) -> None:
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(json.dumps({"skills": entries}))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


def names(found) -> set[str]:
    return set(found.graph.skills)


# resource-loader.test.ts


def test_a_skill_folder_in_the_user_folder_is_found(project: Path) -> None:
    # pi also loads a loose `~/.pi/agent/skills/test-skill.md`. workbench differs on purpose:
    # the spec's skill is a folder holding SKILL.md (its name is checked against the folder's,
    # its files sit beside it), so a loose Markdown file is not a skill
    skill(agent_dir() / "skills" / "test-skill")
    (agent_dir() / "skills" / "loose.md").write_text("---\nname: loose\ndescription: d\n---\n")
    assert names(load_project_skills(project)) == {"test-skill"}


def test_other_markdown_beside_skill_md_is_neither_a_skill_nor_a_finding(project: Path) -> None:
    folder = agent_dir() / "skills" / "pi-skills" / "browser-tools"
    skill(folder)
    (folder / "EFFICIENCY.md").write_text("No frontmatter here")
    found = load_project_skills(project)
    assert names(found) == {"browser-tools"}
    assert not [d for d in lint(found) if d.path.name == "EFFICIENCY.md"]


def test_a_project_skill_wins_over_the_users_of_the_same_name(project: Path) -> None:
    skill(agent_dir() / "skills" / "collision-skill", description="user")
    mine = skill(project / ".pi" / "skills" / "collision-skill", description="project")
    found = load_project_skills(project)
    assert found.graph.get("collision-skill").path == mine
    # pi reports a collision; workbench a warning, as the override is deliberate
    assert [(d.rule, d.severity) for d in lint(found)] == [("name-shadowed", "warning")]


def test_a_minus_entry_in_the_users_settings_leaves_out_a_skill_found_by_default(
    project: Path,
) -> None:
    # was a bug: `-skills/skip-skill` was read as a path, reported missing, and left out nothing
    settings(agent_dir() / "settings.json", ["-skills/skip-skill"])
    skill(agent_dir() / "skills" / "skip-skill")
    skill(agent_dir() / "skills" / "kept")
    found = load_project_skills(project)
    assert names(found) == {"kept"}
    assert lint(found) == []


def test_paths_named_by_hand_are_read_alone(project: Path, tmp_path: Path) -> None:
    # pi's `noSkills` with `additionalSkillPaths`: `workbench lint PATH` reads PATH and no
    # default root (pi's `noSkills` alone has no counterpart: workbench has no such switch)
    skill(agent_dir() / "skills" / "default-one")
    skill(tmp_path / "custom-skills" / "custom")
    assert names(load_paths([tmp_path / "custom-skills"])) == {"custom"}


# package-manager.test.ts


def test_a_user_settings_path_is_relative_to_the_users_pi_folder(project: Path) -> None:
    settings(agent_dir() / "settings.json", ["skills"])
    path = skill(agent_dir() / "skills" / "my-skill", name="test-skill")
    found = load_project_skills(project)
    assert found.graph.get("test-skill").path == path
    # pi warns of the mismatch; the spec calls it invalid, so workbench says error, and loads it
    assert [d.rule for d in lint(found)] == ["name-mismatch"]


def test_a_project_settings_path_is_relative_to_dot_pi(project: Path) -> None:
    settings(project / ".pi" / "settings.json", ["team"])
    skill(project / ".pi" / "team" / "shared")
    assert names(load_project_skills(project)) == {"shared"}


def test_agents_skills_from_the_working_folder_up_to_the_git_root(
    project: Path, tmp_path: Path
) -> None:
    skill(tmp_path / ".agents" / "skills" / "above-repo")
    skill(project / ".agents" / "skills" / "repo-root")
    skill(project / "packages" / ".agents" / "skills" / "nested")
    nested_cwd = project / "packages" / "feature"
    nested_cwd.mkdir(parents=True)
    assert names(load_project_skills(project, cwd=nested_cwd)) == {"repo-root", "nested"}


def test_outside_a_repository_only_the_working_folders_agents_skills_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # pi climbs to the file system's root when no git repository encloses the working folder.
    # workbench differs on purpose: without a repository (or `.pi/`) the project is the working
    # folder, and skills of whatever folders lie above it (/tmp, a shared mount) are not the
    # project's to offer
    cwd = tmp_path / "non-repo" / "a" / "b"
    skill(tmp_path / "non-repo" / ".agents" / "skills" / "root")
    skill(tmp_path / "non-repo" / "a" / ".agents" / "skills" / "middle")
    skill(cwd / ".agents" / "skills" / "here")
    monkeypatch.chdir(cwd)
    assert names(load_project_skills()) == {"here"}


def test_the_homes_agents_skills_stay_the_users_when_working_below_home(
    isolated_user_dirs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # was a bug: with ~/.pi/ present (every pi user has it) home is the project root of a
    # folder below it, so ~/.agents/skills was read first as a project root
    agent_dir().mkdir(parents=True, exist_ok=True)
    cwd = isolated_user_dirs / "scratch" / "nested"
    cwd.mkdir(parents=True)
    skill(isolated_user_dirs / ".agents" / "skills" / "home-skill")
    monkeypatch.chdir(cwd)
    found = load_project_skills()
    assert found.files == 1 and found.found_in["home-skill"].origin == "user"


def test_a_roots_gitignore_leaves_out_what_it_names(project: Path) -> None:
    settings(agent_dir() / "settings.json", ["skills"])
    skills = agent_dir() / "skills"
    skill(skills / "good-skill")
    skill(skills / "venv" / "bad-skill")
    (skills / ".gitignore").write_text("venv\n__pycache__\n")
    assert names(load_project_skills(project)) == {"good-skill"}


def test_ignore_files_below_the_root_and_of_every_kind_count(project: Path) -> None:
    # was a difference: pi reads .gitignore, .ignore and .fdignore in every folder it searches;
    # workbench read the root's .gitignore only
    skills = project / ".pi" / "skills"
    for name in ("kept", "vendor/dropped", "vendor/kept-too", "scratch/notes", "tmp/draft"):
        skill(skills / name)
    (skills / "vendor").joinpath(".gitignore").write_text("dropped\n")
    (skills / ".ignore").write_text("/scratch\n")
    (skills / "tmp").mkdir(exist_ok=True)
    (skills / "tmp" / ".fdignore").write_text("draft/\n")
    assert names(load_project_skills(project)) == {"kept", "kept-too"}


def test_a_gitignore_above_the_root_does_not_hide_it(project: Path) -> None:
    (project / ".gitignore").write_text(".pi\n")
    skill(project / ".pi" / "skills" / "auto-skill")
    assert names(load_project_skills(project)) == {"auto-skill"}


def test_a_bang_glob_leaves_out_matching_skills(project: Path) -> None:
    settings(agent_dir() / "settings.json", ["skills", "!**/bad-skill"])
    skill(agent_dir() / "skills" / "good-skill")
    skill(agent_dir() / "skills" / "bad-skill")
    assert names(load_project_skills(project)) == {"good-skill"}


def test_a_bang_glob_is_relative_to_its_settings_files_folder(project: Path) -> None:
    # was a bug: only a folder's name or absolute path was matched, so `!skills/draft-*` (pi's
    # usual form, relative to ~/.pi/agent) left out nothing
    settings(agent_dir() / "settings.json", ["!skills/draft-*"])
    skill(agent_dir() / "skills" / "draft-one")
    skill(agent_dir() / "skills" / "final")
    assert names(load_project_skills(project)) == {"final"}


def test_a_plus_entry_brings_back_what_a_bang_glob_left_out(project: Path) -> None:
    settings(project / ".pi" / "settings.json", ["!skills/*", "+skills/keep"])
    for name in ("keep", "drop", "also-drop"):
        skill(project / ".pi" / "skills" / name)
    assert names(load_project_skills(project)) == {"keep"}


def test_a_minus_entry_wins_over_a_plus_entry(project: Path) -> None:
    settings(project / ".pi" / "settings.json", ["+skills/alpha", "-skills/alpha"])
    for name in ("alpha", "beta"):
        skill(project / ".pi" / "skills" / name)
    assert names(load_project_skills(project)) == {"beta"}
