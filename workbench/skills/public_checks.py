"""The public rules: checks of every skill's name, description, fields and body references.

They run on every skill, layered or not, shadowed ones included (rules of scope `any`).
"""

from __future__ import annotations

import os
import re
import unicodedata

from workbench.skills.checks import Findings, LintContext, SkillChecks, skill_finding
from workbench.skills.model import Skill

MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
KNOWN_FIELDS = frozenset(
    {
        "name",
        "description",
        "license",
        "compatibility",
        "metadata",
        "allowed-tools",
        "layer",
        "delegates-to",
        "standalone",
        "disable-model-invocation",  # pi's and Claude Code's: hide the skill from the model
        # Claude Code's own fields, recognised and never acted on (a stranger's skill must not
        # pick the model or run code), but for argument-hint and user-invocable
        "argument-hint",
        "user-invocable",
        "model",
        "effort",
        "context",
        "agent",
        "hooks",
        "when_to_use",
        # Claude Code's `paths` (offer the skill only when matching files are touched) and
        # `shell` (the shell of its `!` commands): known, and ignored (docs/skills.md)
        "paths",
        "shell",
    }
)


_ASCII_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def normal_name(name: str) -> str:
    """A name as the spec compares names: NFKC-normalised (ASCII text is its own form)."""
    return name if name.isascii() else unicodedata.normalize("NFKC", name)


def valid_name(name: str) -> bool:
    """The spec's rule: letters (any script, none uppercase) and digits, joined by single
    hyphens, after NFKC normalisation (`技能`, `мой-навык`; not `Мой`, `a--b`)."""
    if name.isascii():  # nearly every name: one regex says it
        return _ASCII_NAME.fullmatch(name) is not None
    name = normal_name(name)
    return (
        bool(name)
        and name == name.lower()
        and not name.startswith("-")
        and not name.endswith("-")
        and "--" not in name
        and all(c.isalnum() or c == "-" for c in name)
    )


SKILL_CHECKS = SkillChecks()


@SKILL_CHECKS.rule("name-missing")
def _name_missing(skill: Skill, context: LintContext) -> Findings:
    name = skill.frontmatter.get("name")
    if skill.has_frontmatter and (name is None or (isinstance(name, str) and not name.strip())):
        return (
            skill_finding(
                "name-missing",
                skill,
                skill.line_of("name"),
                f"no name; the folder name `{skill.name}` is used",
                f"add `name: {skill.name}`",
            ),
        )
    return ()


def _declared_name(skill: Skill) -> str | None:
    name = skill.frontmatter.get("name")
    return name if isinstance(name, str) and name.strip() else None


@SKILL_CHECKS.rule("name-format")
def _name_format(skill: Skill, context: LintContext) -> Findings:
    name = _declared_name(skill)
    if name is not None and not valid_name(name):
        return (
            skill_finding(
                "name-format",
                skill,
                skill.line_of("name"),
                f"name `{name}` must be lowercase letters (any script), digits and single hyphens",
                _name_format_hint(name, _folder(skill)),
            ),
        )
    return ()


def _name_format_hint(name: str, folder: str) -> str:
    """A valid name that `name-mismatch` accepts too: the folder's, when that is a valid name;
    else one made from `name`, with the folder renamed to match."""
    if valid_name(folder) and len(folder) <= MAX_NAME:
        return f"call it `{folder}`, like its folder"
    suggestion = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "my-skill"
    return f"call it `{suggestion}` and rename its folder to match"


def _folder(skill: Skill) -> str:
    """The name of the skill's folder."""
    # Plain string functions: a Path per skill costs more than the check that asks.
    parts = str(skill.path).rsplit(os.sep, 2)
    if len(parts) == 3:
        return parts[1]
    return os.path.basename(os.path.dirname(skill.path))  # noqa: PTH119, PTH120


@SKILL_CHECKS.rule("name-too-long")
def _name_too_long(skill: Skill, context: LintContext) -> Findings:
    name = _declared_name(skill)
    if name is not None and len(name) > MAX_NAME:
        return (
            skill_finding(
                "name-too-long",
                skill,
                skill.line_of("name"),
                f"name has {len(name)} characters; at most {MAX_NAME} are allowed",
            ),
        )
    return ()


@SKILL_CHECKS.rule("name-mismatch")
def _name_mismatch(skill: Skill, context: LintContext) -> Findings:
    folder = _folder(skill)
    name = _declared_name(skill)
    if name is not None and normal_name(name) != normal_name(folder):
        return (
            skill_finding(
                "name-mismatch",
                skill,
                skill.line_of("name"),
                f"name `{name}` differs from its folder `{folder}`",
                "rename the folder or the skill so that they match",
            ),
        )
    return ()


@SKILL_CHECKS.rule("description-missing")
def _description_missing(skill: Skill, context: LintContext) -> Findings:
    description = skill.frontmatter.get("description")
    if not skill.has_frontmatter or not isinstance(description, (str, type(None))):
        return ()  # no fields were read, or the parser reported a description that is not text
    if not skill.description:
        return (
            skill_finding(
                "description-missing",
                skill,
                skill.line_of("description"),
                "no description; agents choose skills by their description",
                "add `description:` saying what the skill does and when to use it",
            ),
        )
    return ()


@SKILL_CHECKS.rule("description-too-long")
def _description_too_long(skill: Skill, context: LintContext) -> Findings:
    if len(skill.description) > MAX_DESCRIPTION:
        return (
            skill_finding(
                "description-too-long",
                skill,
                skill.line_of("description"),
                f"description has {len(skill.description)} characters; at most {MAX_DESCRIPTION}",
                "move detail into the body",
            ),
        )
    return ()


@SKILL_CHECKS.rule("compatibility-too-long")
def _compatibility_too_long(skill: Skill, context: LintContext) -> Findings:
    compatibility = skill.frontmatter.get("compatibility")
    if isinstance(compatibility, str) and len(compatibility) > MAX_COMPATIBILITY:
        return (
            skill_finding(
                "compatibility-too-long",
                skill,
                skill.line_of("compatibility"),
                f"compatibility has {len(compatibility)} characters; at most {MAX_COMPATIBILITY}",
                "name only what the skill needs: a product, system packages, network access",
            ),
        )
    return ()


@SKILL_CHECKS.rule("unknown-field")
def _unknown_field(skill: Skill, context: LintContext) -> Findings:
    if KNOWN_FIELDS.issuperset(skill.frontmatter):  # nearly every skill: one C-level test
        return ()
    return tuple(
        skill_finding(
            "unknown-field",
            skill,
            skill.line_of(str(key)),
            f"unknown field `{key}`",
            "move it under `metadata:`",
        )
        for key in skill.frontmatter
        if key not in KNOWN_FIELDS
    )


@SKILL_CHECKS.rule("reference-broken")
def _reference_broken(skill: Skill, context: LintContext) -> Findings:
    if not skill.references:
        return ()
    folder = os.path.dirname(skill.path)  # noqa: PTH120 - strings, as below
    broken = []
    for reference in skill.references:
        # `..` must be folded before the lookup, which pathlib does not do.
        target = os.path.normpath(os.path.join(folder, reference.target))  # noqa: PTH118
        if target not in context.skill_files and not os.path.exists(target):  # noqa: PTH110
            broken.append(
                skill_finding(
                    "reference-broken",
                    skill,
                    reference.line,
                    f"`{reference.target}` does not exist",
                    "paths in the body are relative to the skill's folder",
                )
            )
    return tuple(broken)
