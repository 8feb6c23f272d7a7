"""pi's own skill tests (badlogic/pi-mono, packages/coding-agent/test/skills.test.ts), restated in
our words over the same fixtures, each with workbench's outcome. Where workbench differs on
purpose, the case says why. Skipped where ../shared/corpora is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.enforcer.topology import render
from workbench.errors import UsageError
from workbench.skills.discover import SkillRoot, SkillSet, load_skills
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
