"""The real corpora in ../shared/corpora: every one loads, and known defects get the right rule."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from workbench.skills.discover import SkillRoot, load_skills
from workbench.skills.lint import lint

CORPORA = Path(__file__).resolve().parents[3].parent / "shared" / "corpora"  # ../shared/corpora
pytestmark = pytest.mark.skipif(not CORPORA.is_dir(), reason="the shared corpora are not here")
NAMES = sorted(p.name for p in CORPORA.iterdir() if p.is_dir()) if CORPORA.is_dir() else []
PI = "badlogic__pi-mono/packages/coding-agent"


def outermost_skill_files(root: Path) -> int:
    """SKILL.md files not inside another skill folder, counted without our discovery code."""
    count = 0
    for _folder, subfolders, files in os.walk(root):
        if "SKILL.md" in files:
            count += 1
            subfolders.clear()
    return count


def load(*parts: str):
    return load_skills([SkillRoot(CORPORA.joinpath(*parts), "explicit")], use_cache=False)


def test_every_corpus_is_here() -> None:
    assert len(NAMES) >= 8


@pytest.mark.parametrize("corpus", NAMES)
def test_corpus_loads_every_skill(corpus: str) -> None:
    skills = load(corpus)
    found = lint(skills)
    assert skills.files == outermost_skill_files(CORPORA / corpus)
    assert len(skills.graph) + len(skills.shadowed) == skills.files - sum(
        d.rule == "file-unreadable" for d in found
    )
    assert all(d.path.is_relative_to(CORPORA / corpus) and d.line >= 1 for d in found)


def test_pi_mono_fixture_defects_get_their_rule_ids() -> None:
    found = lint(load(PI))
    by_file = sorted((str(d.path.relative_to(CORPORA / PI)), d.line, d.rule) for d in found)
    fixtures = "test/fixtures/skills"
    assert by_file == [
        ("test/fixtures/skills-collision/second/calendar/SKILL.md", 2, "name-duplicate"),
        (f"{fixtures}/consecutive-hyphens/SKILL.md", 2, "name-format"),
        (f"{fixtures}/consecutive-hyphens/SKILL.md", 2, "name-mismatch"),
        (f"{fixtures}/invalid-name-chars/SKILL.md", 2, "name-format"),
        (f"{fixtures}/invalid-name-chars/SKILL.md", 2, "name-mismatch"),
        (f"{fixtures}/invalid-yaml/SKILL.md", 3, "yaml-invalid"),
        (f"{fixtures}/long-name/SKILL.md", 2, "name-mismatch"),
        (f"{fixtures}/long-name/SKILL.md", 2, "name-too-long"),
        (f"{fixtures}/missing-description/SKILL.md", 1, "description-missing"),
        (f"{fixtures}/name-mismatch/SKILL.md", 2, "name-mismatch"),
        (f"{fixtures}/no-frontmatter/SKILL.md", 1, "frontmatter-missing"),
        (f"{fixtures}/root-skill-preferred/SKILL.md", 1, "name-missing"),
        (f"{fixtures}/unknown-field/SKILL.md", 4, "unknown-field"),
        (f"{fixtures}/unknown-field/SKILL.md", 5, "unknown-field"),
    ]


def test_pi_mono_fixtures_that_are_valid_load_cleanly() -> None:
    skills = load(PI)
    for name in ("valid-skill", "multiline-description", "disable-model-invocation", "child-skill"):
        assert skills.graph.get(name) is not None, name
        assert skills.diagnostics_for(name) == []
    assert skills.graph.get("nested-child") is None  # inside a skill folder: not a skill
    assert skills.graph.get("calendar").description == "First calendar skill."


def test_named_defects_of_other_corpora() -> None:
    anthropic = {(d.path.parent.name, d.rule) for d in lint(load("anthropics__skills"))}
    assert ("template", "name-mismatch") in anthropic
    assert ("claude-api", "description-too-long") in anthropic
    scientific = load("K-Dense-AI__claude-scientific-skills")
    geomaster = scientific.graph.get("geomaster")  # the corpus's CRLF file
    assert geomaster.description and "\r" not in geomaster.body
    assert ("database-lookup", "description-too-long") in {
        (d.path.parent.name, d.rule) for d in lint(scientific)
    }
    composio = lint(load("ComposioHQ__awesome-claude-skills"), select=["name-format"])
    assert len(composio) > 10


def test_hidden_folders_of_openai_skills_are_searched() -> None:
    skills = load("openai__skills")
    assert skills.files == 10
    assert all("/." in str(s.path) for s in skills.graph.skills.values())
    assert lint(skills) == []


def test_all_corpora_at_once() -> None:
    skills = load()
    assert skills.files == outermost_skill_files(CORPORA)
    assert len(skills.graph) > 1400
