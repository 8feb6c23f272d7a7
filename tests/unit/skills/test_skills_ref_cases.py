"""The Agent Skills reference validator's own cases (agentskills/agentskills,
skills-ref/tests/test_validator.py), restated in our words, each with workbench's outcome.

`expected` is what skills-ref says (valid or not); `ours` is the error rules workbench reports.
Where they differ it is on purpose, and the case says why (`because`).

Agreement, counted over skills-ref 0.1.1's 40 tests (test_parser 15, test_prompt 4,
test_validator 21; every one is restated below): workbench agrees with 36 and differs on purpose
on 4: an unknown top-level field (a warning, not invalid), a lowercase `skill.md` (2 tests: not
read; a warning says to rename it) and an empty skill list (no prompt section at all). The four
`allowed-tools` list and number cases are ours, not skills-ref's."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from workbench.enforcer.topology import render
from workbench.errors import UsageError
from workbench.skills.discover import SkillRoot, SkillSet, load_paths, load_skills
from workbench.skills.lint import lint


def prompt(skills: SkillSet) -> str:
    return render(skills.graph, lambda s: str(s.path))


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


# skills-ref/tests/test_parser.py: reading a SKILL.md. `ours` is the error rules workbench reports
# for the same file, the fields it reads, or, for a folder given by hand, the usage error.

PARSER_CASES = {
    "valid frontmatter": ("name: my-skill\ndescription: A test skill", ()),
    "missing frontmatter": (None, ("frontmatter-missing",)),
    "invalid yaml": ("name: [invalid\ndescription: broken", ("yaml-invalid",)),
    "non-dict frontmatter": ("- just\n- a\n- list", ("frontmatter-not-mapping",)),
    "missing name": ("description: A test skill", ("name-missing",)),
    "missing description": ("name: my-skill", ("description-missing",)),
}


@pytest.mark.parametrize(("frontmatter", "ours"), PARSER_CASES.values(), ids=list(PARSER_CASES))
def test_each_parser_case(frontmatter: str | None, ours: tuple[str, ...], tmp_path: Path) -> None:
    folder = tmp_path / "my-skill"
    folder.mkdir()
    text = "# No frontmatter here\n" if frontmatter is None else f"---\n{frontmatter}\n---\nBody\n"
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    skills = load_skills([SkillRoot(tmp_path, "explicit")], use_cache=False)
    assert tuple(sorted({d.rule for d in lint(skills) if d.severity == "error"})) == ours


def test_an_unclosed_frontmatter_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "my-skill").mkdir()
    (tmp_path / "my-skill" / "SKILL.md").write_text("---\nname: my-skill\ndescription: d\n")
    skills = load_skills([SkillRoot(tmp_path, "explicit")], use_cache=False)
    assert [d.rule for d in lint(skills)] == ["frontmatter-unclosed"]


def test_fields_are_read_as_written(tmp_path: Path) -> None:
    # skills-ref's read_valid_skill, read_with_metadata and read_with_allowed_tools
    (tmp_path / "my-skill").mkdir()
    (tmp_path / "my-skill" / "SKILL.md").write_text(
        "---\nname: my-skill\ndescription: A test skill\nlicense: MIT\n"
        "allowed-tools: Bash(jq:*) Bash(git:*)\nmetadata:\n  author: Test Author\n"
        "  version: 1.0\n---\n# My Skill\n"
    )
    skill = load_skills([SkillRoot(tmp_path, "explicit")], use_cache=False).graph.get("my-skill")
    assert (skill.description, skill.frontmatter["license"]) == ("A test skill", "MIT")
    assert skill.frontmatter["allowed-tools"] == "Bash(jq:*) Bash(git:*)"
    assert skill.frontmatter["metadata"] == {"author": "Test Author", "version": "1.0"}
    assert "# My Skill" in skill.body


def test_skill_md_wins_and_a_lowercase_skill_md_is_not_read(tmp_path: Path) -> None:
    # skills-ref prefers SKILL.md (agreed) but reads a lone `skill.md` too. workbench differs on
    # purpose: the spec names the file SKILL.md, and a file that loads on one system and not on
    # a case-sensitive other is a trap; workbench says to rename it (skill-file-case)
    for folder, files in (("both", ("SKILL.md", "skill.md")), ("lower", ("skill.md",))):
        (tmp_path / folder).mkdir()
        for name in files:
            (tmp_path / folder / name).write_text(f"---\nname: {folder}\ndescription: d\n---\n")
    skills = load_skills([SkillRoot(tmp_path, "explicit")], use_cache=False)
    assert list(skills.graph.skills) == ["both"]
    assert [(d.rule, d.path.parent.name) for d in lint(skills)] == [("skill-file-case", "lower")]


@pytest.mark.parametrize("kind", ["missing", "a file", "no SKILL.md"])
def test_a_path_that_is_not_a_skill_is_refused(kind: str, tmp_path: Path) -> None:
    # skills-ref's missing_skill_md (parser and validator), nonexistent_path, not_a_directory
    path = tmp_path / "my-skill"
    if kind == "a file":
        path.write_text("x")
    elif kind == "no SKILL.md":
        path.mkdir()
    with pytest.raises(UsageError):
        load_paths([path])


# skills-ref/tests/test_prompt.py: the skills listed to the model


def test_the_prompt_lists_name_description_and_location_escaped(tmp_path: Path) -> None:
    # skills-ref writes each value on a line of its own inside its element; workbench (as pi)
    # on the element's line: the same XML to a reader
    for name, description in (("skill-a", "First skill"), ("skill-b", "Use <foo> & <bar> tags")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {description}\n---\nBody\n"
        )
    text = prompt(load_skills([SkillRoot(tmp_path, "explicit")], use_cache=False))
    assert "<available_skills>" in text and "</available_skills>" in text
    assert text.count("<skill>") == text.count("</skill>") == 2
    assert "<name>skill-a</name>" in text and "<description>First skill</description>" in text
    assert f"<location>{tmp_path / 'skill-a' / 'SKILL.md'}</location>" in text
    assert "&lt;foo&gt; &amp; &lt;bar&gt;" in text and "<foo>" not in text


def test_no_skills_no_prompt_section(tmp_path: Path) -> None:
    # skills-ref writes an empty <available_skills></available_skills>; workbench (as pi)
    # writes nothing: an empty list tells the model nothing and costs tokens on every turn
    assert prompt(load_skills([SkillRoot(tmp_path, "explicit")], use_cache=False)) == ""
