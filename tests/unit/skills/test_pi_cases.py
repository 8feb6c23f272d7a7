"""pi's own skill tests (badlogic/pi-mono, packages/coding-agent/test/skills.test.ts), restated in
our words over the same fixtures, each with workbench's outcome. Where workbench differs on
purpose, the case says why. Skipped where ../shared/corpora is absent.

Agreement with its 28 tests: 22. workbench differs on purpose on 6: a skill without a
description (missing-description, no-frontmatter) or with invalid YAML is kept for lint and
`/skill:NAME` (pi drops it; neither lists it to the model), unknown fields are warnings (pi says
nothing), a SKILL.md without `name` is an error (root-skill-preferred; pi says nothing) and a
`"` is left as it is in the prompt (pi writes &quot;)."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.config import agent_dir
from workbench.enforcer.topology import render
from workbench.errors import UsageError
from workbench.skills.discover import SkillRoot, SkillSet, load_project_skills, load_skills
from workbench.skills.lint import lint

FIXTURES = (
    Path(__file__).resolve().parents[3].parent
    / "shared/corpora/badlogic__pi-mono/packages/coding-agent/test/fixtures/skills"
)
pytestmark = pytest.mark.skipif(not FIXTURES.is_dir(), reason=f"no pi fixtures at {FIXTURES}")


def load(name: str = "", origin: str = "explicit") -> SkillSet:
    return load_skills([SkillRoot(FIXTURES / name, origin)], use_cache=False)  # type: ignore[arg-type]


def rules(skills: SkillSet) -> list[str]:
    return sorted(d.rule for d in lint(skills))


def prompt(skills: SkillSet) -> str:
    return render(skills.graph, lambda s: str(s.path))


def test_a_valid_skill_loads_clean() -> None:
    skills = load("valid-skill")
    assert list(skills.graph.skills) == ["valid-skill"] and rules(skills) == []
    assert skills.graph.get("valid-skill").description == "A valid skill for testing purposes."


@pytest.mark.parametrize(
    ("fixture", "name", "rule"),
    [
        ("name-mismatch", "different-name", "name-mismatch"),
        ("invalid-name-chars", None, "name-format"),
        ("long-name", None, "name-too-long"),
        ("consecutive-hyphens", None, "name-format"),
    ],
)
def test_name_problems_are_reported_and_the_skill_still_loads(fixture, name, rule) -> None:
    # pi warns; the spec calls these invalid, so workbench says error, and loads it like pi
    skills = load(fixture)
    assert len(skills.graph) == 1 and rule in rules(skills)
    if name:
        assert name in skills.graph.skills


@pytest.mark.parametrize(
    ("fixture", "rule"),
    [
        ("missing-description", "description-missing"),
        ("no-frontmatter", "frontmatter-missing"),
    ],
)
def test_a_skill_without_a_description_is_not_offered(fixture: str, rule: str) -> None:
    # pi skips it; workbench keeps it for /skill:NAME and lint, but never lists it to the model
    skills = load(fixture)
    assert rule in rules(skills) and "<skill>" not in prompt(skills)


def test_unknown_fields_are_warnings() -> None:
    found = [d for d in lint(load("unknown-field")) if d.rule == "unknown-field"]
    assert sorted(d.message for d in found) == ["unknown field `author`", "unknown field `version`"]
    assert {d.severity for d in found} == {"warning"}


def test_nested_skills_load() -> None:
    skills = load("nested")
    assert list(skills.graph.skills) == ["child-skill"] and rules(skills) == []


def test_invalid_yaml_is_skipped_and_placed() -> None:
    found = [d for d in lint(load("invalid-yaml")) if d.rule == "yaml-invalid"]
    assert len(found) == 1 and found[0].line > 1 and "<skill>" not in prompt(load("invalid-yaml"))


def test_a_multiline_description_keeps_its_lines() -> None:
    description = load("multiline-description").graph.get("multiline-description").description
    assert "\n" in description and "This is a multiline description." in description


def test_disable_model_invocation_is_known_and_hides_the_skill() -> None:
    skills = load("disable-model-invocation")
    assert "unknown-field" not in rules(skills)
    assert "disable-model-invocation" in skills.graph.skills and prompt(skills) == ""


def test_the_whole_fixture_folder_loads_every_described_skill() -> None:
    assert len(load().graph) >= 6


def test_a_missing_path_named_by_settings_is_a_warning_but_by_hand_an_error() -> None:
    settings = load_skills([SkillRoot(FIXTURES / "gone", "settings")], use_cache=False)
    assert rules(settings) == ["skill-path-missing"]
    # pi returns nothing for a missing folder; a path the user typed that does not exist is
    # a usage error here, so that a typo is not taken for "no skills"
    with pytest.raises(UsageError):
        load("gone")


def test_names_in_two_roots_keep_the_first_and_say_so(tmp_path: Path) -> None:
    for root, description in (("first", "first"), ("second", "second")):
        folder = tmp_path / root / "calendar"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: calendar\ndescription: {description}\n---\n")
    skills = load_skills(
        [SkillRoot(tmp_path / "first", "project"), SkillRoot(tmp_path / "second", "user")],
        use_cache=False,
    )
    assert skills.graph.get("calendar").description == "first"
    assert rules(skills) == ["name-shadowed"]


def test_a_folders_own_skill_md_wins_over_skill_mds_below_it() -> None:
    skills = load("root-skill-preferred")
    assert list(skills.graph.skills) == ["root-skill-preferred"]
    # pi accepts a SKILL.md without `name` in silence; the spec requires it, so workbench says
    # so (and uses the folder's name, as pi does)
    assert rules(skills) == ["name-missing"]
    assert skills.graph.get("root-skill-preferred").description == "Root skill should win."


def test_a_skill_without_the_flag_is_offered_to_the_model() -> None:
    assert "<name>valid-skill</name>" in prompt(load("valid-skill"))


def write(root: Path, name: str, description: str, extra: str = "") -> None:
    (root / name).mkdir(parents=True)
    text = f"---\nname: {name}\ndescription: '{description}'\n{extra}---\n"
    (root / name / "SKILL.md").write_text(text, encoding="utf-8")


def load_written(root: Path) -> SkillSet:
    return load_skills([SkillRoot(root, "explicit")], use_cache=False)


def test_the_prompt_lists_skills_as_pi_does(tmp_path: Path) -> None:
    write(tmp_path, "skill-one", "First skill.")
    write(tmp_path, "skill-two", 'A skill with <special> & "characters".')
    text = prompt(load_written(tmp_path))
    intro = text[: text.index("<available_skills>")]
    assert "The following skills provide specialized instructions" in intro
    assert "Use the read tool to load a skill's file" in intro
    assert text.count("<skill>") == 2 and "</available_skills>" in text
    assert "<name>skill-one</name>" in text and "<description>First skill.</description>" in text
    assert f"<location>{tmp_path / 'skill-one' / 'SKILL.md'}</location>" in text
    # pi also writes `"` as &quot;. workbench leaves it: a quote cannot end an element's text
    # (only `<` and `&` can), and the model reads the description as written
    assert '&lt;special&gt; &amp; "characters"' in text


def test_no_skill_to_offer_means_no_prompt_section(tmp_path: Path) -> None:
    assert prompt(load_written(tmp_path)) == ""
    write(tmp_path, "hidden-skill", "A hidden skill.", "disable-model-invocation: true\n")
    assert prompt(load_written(tmp_path)) == ""
    write(tmp_path, "visible-skill", "A visible skill.")
    text = prompt(load_written(tmp_path))
    assert text.count("<skill>") == 1 and "<name>visible-skill</name>" in text


def test_settings_paths_are_read_and_a_tilde_is_the_home_folder(
    tmp_path: Path, isolated_user_dirs: Path
) -> None:
    write(isolated_user_dirs / "my-skills", "mine", "Mine.")
    agent_dir().mkdir(parents=True, exist_ok=True)
    (agent_dir() / "settings.json").write_text('{"skills": ["~/my-skills"]}')
    project = tmp_path / "project"
    project.mkdir()
    assert list(load_project_skills(project).graph.skills) == ["mine"]
    # a project's own settings may name such a path too, but it is read only once the user
    # trusts the project (docs/security.md): a stranger's repository does not pick our files
