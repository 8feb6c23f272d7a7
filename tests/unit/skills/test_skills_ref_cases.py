"""The Agent Skills reference validator's own cases (agentskills/agentskills,
skills-ref/tests/test_validator.py), restated in our words, each with workbench's outcome.

`expected` is what skills-ref says (valid or not); `ours` is the error rules workbench reports.
Where they differ it is on purpose, and the case says why (`because`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from workbench.skills.discover import SkillRoot, load_skills
from workbench.skills.lint import lint


@dataclass(frozen=True)
class RefCase:
    folder: str
    frontmatter: str
    spec_valid: bool
    ours: tuple[str, ...] = ()
    """The error rules workbench reports (warnings are not rejections)."""
    because: str = ""


CASES = {
    "valid": RefCase("my-skill", "name: my-skill\ndescription: A test skill", True),
    "uppercase": RefCase("MySkill", "name: MySkill\ndescription: d", False, ("name-format",)),
    "too long": RefCase("a" * 70, f"name: {'a' * 70}\ndescription: d", False, ("name-too-long",)),
    "leading hyphen": RefCase(
        "-my-skill", "name: -my-skill\ndescription: d", False, ("name-format",)
    ),
    "double hyphen": RefCase(
        "my--skill", "name: my--skill\ndescription: d", False, ("name-format",)
    ),
    "underscore": RefCase("my_skill", "name: my_skill\ndescription: d", False, ("name-format",)),
    "folder mismatch": RefCase(
        "wrong-name", "name: correct-name\ndescription: d", False, ("name-mismatch",)
    ),
    "unexpected field": RefCase(
        "my-skill",
        "name: my-skill\ndescription: d\nunknown_field: x",
        False,
        (),
        because="other agents add fields of their own: workbench warns (unknown-field), and "
        "reads the skill",
    ),
    "all fields": RefCase(
        "my-skill", "name: my-skill\ndescription: d\nlicense: MIT\nmetadata:\n  author: T", True
    ),
    "allowed-tools text": RefCase(
        "my-skill", "name: my-skill\ndescription: d\nallowed-tools: Bash(jq:*) Bash(git:*)", True
    ),
    "allowed-tools inline list": RefCase(
        "my-skill", "name: my-skill\ndescription: d\nallowed-tools: [Read, Write]", True
    ),
    "allowed-tools block list": RefCase(
        "my-skill", "name: my-skill\ndescription: d\nallowed-tools:\n  - Read\n  - Grep", True
    ),
    "allowed-tools list of a number": RefCase(
        "my-skill",
        "name: my-skill\ndescription: d\nallowed-tools:\n  - Read\n  - 123",
        False,
        (),
        because="values are the text the author wrote: `123` is the text 123, a tool name",
    ),
    "allowed-tools a number": RefCase(
        "my-skill",
        "name: my-skill\ndescription: d\nallowed-tools: 123",
        False,
        (),
        because="values are the text the author wrote: `123` is the text 123, a tool name",
    ),
    "chinese name": RefCase("技能", "name: 技能\ndescription: d", True),
    "russian with hyphens": RefCase("мой-навык", "name: мой-навык\ndescription: d", True),
    "russian lowercase": RefCase("навык", "name: навык\ndescription: d", True),
    "russian uppercase": RefCase("НАВЫК", "name: НАВЫК\ndescription: d", False, ("name-format",)),
    "description too long": RefCase(
        "my-skill", f"name: my-skill\ndescription: {'x' * 1100}", False, ("description-too-long",)
    ),
    "compatibility": RefCase(
        "my-skill", "name: my-skill\ndescription: d\ncompatibility: Requires Python 3.11+", True
    ),
    "compatibility too long": RefCase(
        "my-skill",
        f"name: my-skill\ndescription: d\ncompatibility: {'x' * 550}",
        False,
        ("compatibility-too-long",),
    ),
    "nfkc": RefCase("café", "name: cafe\u0301\ndescription: d", True),
}


@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_each_reference_case(case: RefCase, tmp_path: Path) -> None:
    folder = tmp_path / case.folder
    folder.mkdir()
    (folder / "SKILL.md").write_text(f"---\n{case.frontmatter}\n---\nBody\n", encoding="utf-8")
    skills = load_skills([SkillRoot(tmp_path, "explicit")], use_cache=False)
    errors = tuple(sorted({d.rule for d in lint(skills) if d.severity == "error"}))
    assert errors == case.ours
    agrees = (errors == ()) == case.spec_valid
    assert agrees or case.because, "a difference from the spec needs its reason"
