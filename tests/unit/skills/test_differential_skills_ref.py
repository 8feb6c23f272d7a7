"""workbench against the Agent Skills reference validator (`skills-ref`): a skill the spec
accepts is never one workbench rejects. Generated cases, and every skill of ../shared/corpora
(skipped where the corpora are absent). Where skills-ref rejects a skill workbench reads, that is
often its strict YAML parser (880 of the corpora's skills): its limit, not a difference in the
spec, so only the one direction is checked. skills-ref validates one skill alone: rules about a
set of skills (`name-duplicate`: two skills of one name) are left out of the comparison."""

from __future__ import annotations

from pathlib import Path

import pytest
from skills_ref.validator import validate

from workbench.skills.discover import SkillRoot, load_skills
from workbench.skills.lint import lint

CORPORA = Path(__file__).resolve().parents[3].parent / "shared" / "corpora"
SET_RULES = {"name-duplicate"}
CASES = {
    "plain": "name: plain\ndescription: A plain skill.",
    "技能": "name: 技能\ndescription: 中文技能。",
    "мой-навык": "name: мой-навык\ndescription: Русский навык.",
    "yes-no": "name: yes-no\ndescription: yes",
    "numbers": "name: numbers\ndescription: d\nmetadata:\n  version: 1.0\n  count: 3",
    "dates": "name: dates\ndescription: d\nmetadata:\n  since: 2024-01-01",
    "compat": f"name: compat\ndescription: d\ncompatibility: {'c' * 500}",
    "tools": "name: tools\ndescription: d\nallowed-tools: Read Grep Bash(git:*)",
    "licensed": "name: licensed\ndescription: d\nlicense: Apache-2.0",
    "long-desc": f"name: long-desc\ndescription: {'d' * 1024}",
    "n" * 64: f"name: {'n' * 64}\ndescription: d",
}


def rejected_by_us(root: Path) -> dict[str, set[str]]:
    skills = load_skills([SkillRoot(root, "explicit")], use_cache=False)
    found: dict[str, set[str]] = {}
    for finding in lint(skills):
        if finding.severity == "error" and finding.rule not in SET_RULES:
            found.setdefault(str(Path(finding.path).parent), set()).add(finding.rule)
    return found


def disagreements(root: Path) -> dict[str, set[str]]:
    """The skill folders skills-ref accepts and workbench rejects, with our rules."""
    ours = rejected_by_us(root)
    folders = sorted({str(p.parent) for p in root.rglob("SKILL.md")})
    return {f: ours[f] for f in folders if f in ours and not validate(Path(f))}


def test_generated_cases_the_spec_accepts_we_accept(tmp_path: Path) -> None:
    for folder, frontmatter in CASES.items():
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "SKILL.md").write_text(f"---\n{frontmatter}\n---\n# Body\n")
        assert validate(tmp_path / folder) == [], f"the spec accepts {folder}"
    assert disagreements(tmp_path) == {}


@pytest.mark.skipif(not CORPORA.is_dir(), reason=f"no corpora at {CORPORA}")
def test_no_corpus_skill_the_spec_accepts_is_rejected() -> None:
    assert disagreements(CORPORA) == {}
