"""Lint rules over a loaded skill set: one small check per rule id.

A check looks at one skill (`SKILL_CHECKS`) or at the whole graph (`GRAPH_CHECKS`). Rules of
scope `any` run on every skill, shadowed ones included; rules of scope `layered` run only on
skills that declare a layer, as ordinary skills are outside the graph rules. Findings made while
reading (parse and discovery rules) are already in the skill set and pass the same filter.
Each check returns a tuple of findings (usually empty): cheaper than a generator per call,
which matters at 10,000 skills.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass

from workbench.errors import UsageError
from workbench.skills.cycles import find_cycles
from workbench.skills.discover import SkillSet
from workbench.skills.graph import SkillGraph
from workbench.skills.model import LAYER_BELOW, LAYERS, Diagnostic, Layer, Skill
from workbench.skills.rules import RULES, finding

NAME_PATTERN = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_FANOUT = 10
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
        "disable-model-invocation",  # pi's own field: hide the skill from the model
    }
)


@dataclass
class LintContext:
    """What checks may look at besides the skill: the graph, and every SKILL.md found."""

    graph: SkillGraph
    skill_files: frozenset[str]


Findings = tuple[Diagnostic, ...]
SkillCheck = Callable[[Skill, LintContext], Findings]
GraphCheck = Callable[[LintContext], Findings]
SKILL_CHECKS: dict[str, tuple[SkillCheck, tuple[Layer, ...]]] = {}
"""Rule id -> (check, the layers it looks at; empty for every skill of the rule's scope)."""
GRAPH_CHECKS: dict[str, GraphCheck] = {}


def _skill_rule(rule: str, *layers: Layer) -> Callable[[SkillCheck], SkillCheck]:
    def register(check: SkillCheck) -> SkillCheck:
        SKILL_CHECKS[rule] = (check, layers)
        return check

    return register


def _report(
    rule: str, skill: Skill, line: int, message: str, hint: str | None = None
) -> Diagnostic:
    return finding(rule, skill.path, line, message, hint, skill.name)


def check_rule_ids(rule_ids: Collection[str]) -> None:
    """Raise UsageError for ids that name no rule."""
    unknown = sorted(set(rule_ids) - RULES.keys())
    if unknown:
        raise UsageError(f"unknown rule id: {', '.join(unknown)} (the README lists the rules)")


def lint(
    skills: SkillSet, select: Collection[str] | None = None, ignore: Collection[str] = ()
) -> list[Diagnostic]:
    """Every finding about `skills`, sorted by file and line. `select` keeps only those rule ids,
    `ignore` drops these; both raise UsageError for an unknown id."""
    check_rule_ids([*(select or ()), *ignore])
    wanted = set(select or RULES) - set(ignore)
    found = [d for d in skills.diagnostics if d.rule in wanted]
    graph = skills.graph
    context = LintContext(graph, frozenset(str(s.path) for s in graph.skills.values()))
    public = [c for r, (c, _) in SKILL_CHECKS.items() if r in wanted and RULES[r].scope == "any"]
    per_layer = {
        layer: [
            check
            for rule, (check, layers) in SKILL_CHECKS.items()
            if rule in wanted and RULES[rule].scope == "layered" and layer in (layers or LAYERS)
        ]
        for layer in LAYERS
    }
    for skill in graph.skills.values():
        checks = public + per_layer[skill.layer] if skill.layer else public
        for check in checks:
            found += check(skill, context)
    for skill in skills.shadowed:  # not in the graph: the public rules only
        for check in public:
            found += check(skill, context)
    for rule, graph_check in GRAPH_CHECKS.items():
        if rule in wanted:
            found.extend(graph_check(context))
    found.sort(key=lambda d: (str(d.path), d.line, d.rule))
    return found


# Public rules: every skill.


@_skill_rule("name-missing")
def _name_missing(skill: Skill, context: LintContext) -> Findings:
    name = skill.frontmatter.get("name")
    if skill.has_frontmatter and (name is None or (isinstance(name, str) and not name.strip())):
        return (
            _report(
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


@_skill_rule("name-format")
def _name_format(skill: Skill, context: LintContext) -> Findings:
    name = _declared_name(skill)
    if name is not None and not NAME_PATTERN.fullmatch(name):
        return (
            _report(
                "name-format",
                skill,
                skill.line_of("name"),
                f"name `{name}` must be lowercase letters, digits and single hyphens",
                _name_format_hint(name, _folder(skill)),
            ),
        )
    return ()


def _name_format_hint(name: str, folder: str) -> str:
    """A valid name that `name-mismatch` accepts too: the folder's, when that is a valid name;
    else one made from `name`, with the folder renamed to match."""
    if NAME_PATTERN.fullmatch(folder) and len(folder) <= MAX_NAME:
        return f"call it `{folder}`, like its folder"
    suggestion = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "my-skill"
    return f"call it `{suggestion}` and rename its folder to match"


def _folder(skill: Skill) -> str:
    """The name of the skill's folder."""
    # Plain string functions: a Path per skill costs more than the check that asks.
    return os.path.basename(os.path.dirname(skill.path))  # noqa: PTH119, PTH120


@_skill_rule("name-too-long")
def _name_too_long(skill: Skill, context: LintContext) -> Findings:
    name = _declared_name(skill)
    if name is not None and len(name) > MAX_NAME:
        return (
            _report(
                "name-too-long",
                skill,
                skill.line_of("name"),
                f"name has {len(name)} characters; at most {MAX_NAME} are allowed",
            ),
        )
    return ()


@_skill_rule("name-mismatch")
def _name_mismatch(skill: Skill, context: LintContext) -> Findings:
    folder = _folder(skill)
    name = _declared_name(skill)
    if name is not None and name != folder:
        return (
            _report(
                "name-mismatch",
                skill,
                skill.line_of("name"),
                f"name `{name}` differs from its folder `{folder}`",
                "rename the folder or the skill so that they match",
            ),
        )
    return ()


@_skill_rule("description-missing")
def _description_missing(skill: Skill, context: LintContext) -> Findings:
    description = skill.frontmatter.get("description")
    if not skill.has_frontmatter or not isinstance(description, (str, type(None))):
        return ()  # no fields were read, or the parser reported a description that is not text
    if not skill.description:
        return (
            _report(
                "description-missing",
                skill,
                skill.line_of("description"),
                "no description; agents choose skills by their description",
                "add `description:` saying what the skill does and when to use it",
            ),
        )
    return ()


@_skill_rule("description-too-long")
def _description_too_long(skill: Skill, context: LintContext) -> Findings:
    if len(skill.description) > MAX_DESCRIPTION:
        return (
            _report(
                "description-too-long",
                skill,
                skill.line_of("description"),
                f"description has {len(skill.description)} characters; at most {MAX_DESCRIPTION}",
                "move detail into the body",
            ),
        )
    return ()


@_skill_rule("unknown-field")
def _unknown_field(skill: Skill, context: LintContext) -> Findings:
    return tuple(
        _report(
            "unknown-field",
            skill,
            skill.line_of(str(key)),
            f"unknown field `{key}`",
            "move it under `metadata:`",
        )
        for key in skill.frontmatter
        if key not in KNOWN_FIELDS
    )


@_skill_rule("reference-broken")
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
                _report(
                    "reference-broken",
                    skill,
                    reference.line,
                    f"`{reference.target}` does not exist",
                    "paths in the body are relative to the skill's folder",
                )
            )
    return tuple(broken)


# Graph rules: layered skills only.


@_skill_rule("atom-delegates", "atom")
def _atom_delegates(skill: Skill, context: LintContext) -> Findings:
    if skill.delegates_to:
        return (
            _report(
                "atom-delegates",
                skill,
                skill.line_of("delegates-to"),
                "an atom does one thing and delegates to nothing",
                "make it a molecule, or remove `delegates-to`",
            ),
        )
    return ()


@_skill_rule("delegates-missing", "molecule", "compound")
def _delegates_missing(skill: Skill, context: LintContext) -> Findings:
    if not skill.delegates_to:
        below = LAYER_BELOW[skill.layer or ""]
        return (
            _report(
                "delegates-missing",
                skill,
                skill.line_of("delegates-to", default=skill.line_of("layer")),
                f"a {skill.layer} must name the {below}s it uses in `delegates-to`",
                f'add `delegates-to: "{below}-a {below}-b"` under metadata',
            ),
        )
    return ()


@_skill_rule("delegate-unknown", "molecule", "compound")
def _delegate_unknown(skill: Skill, context: LintContext) -> Findings:
    return tuple(
        _report(
            "delegate-unknown",
            skill,
            skill.line_of_delegate(target),
            f"delegates to `{target}`, which no skill is called",
            "fix the name or add the skill",
        )
        for target in skill.delegates_to
        if target not in context.graph
    )


@_skill_rule("delegate-layer", "molecule", "compound")
def _delegate_layer(skill: Skill, context: LintContext) -> Findings:
    expected = LAYER_BELOW[skill.layer or ""]
    wrong = []
    for target in skill.delegates_to:
        other = context.graph.get(target)
        if other is not None and other.layer != expected:
            what = _a(other.layer) if other.layer else "an ordinary skill without a layer"
            wrong.append(
                _report(
                    "delegate-layer",
                    skill,
                    skill.line_of_delegate(target),
                    f"delegates to `{target}`, {what}; {_a(skill.layer or '')} delegates to "
                    f"{expected}s",
                    "compound -> molecule -> atom, one layer at a time",
                )
            )
    return tuple(wrong)


def _a(noun: str) -> str:
    """`an atom`, `a molecule`."""
    return f"{'an' if noun[:1] in ('a', 'e', 'i', 'o', 'u') else 'a'} {noun}"


@_skill_rule("atom-not-standalone", "atom")
def _atom_not_standalone(skill: Skill, context: LintContext) -> Findings:
    if not skill.standalone:
        return (
            _report(
                "atom-not-standalone",
                skill,
                skill.line_of("layer"),
                "atom is not standalone, so a sub-agent cannot load it directly",
                'add `standalone: "true"` under metadata',
            ),
        )
    return ()


@_skill_rule("fanout-high", "molecule", "compound")
def _fanout_high(skill: Skill, context: LintContext) -> Findings:
    if len(skill.delegates_to) > MAX_FANOUT:
        return (
            _report(
                "fanout-high",
                skill,
                skill.line_of("delegates-to"),
                f"delegates to {len(skill.delegates_to)} skills; more than {MAX_FANOUT} is hard to "
                "orchestrate",
                "split it into smaller skills",
            ),
        )
    return ()


@_skill_rule("unreachable", "molecule", "atom")
def _unreachable(skill: Skill, context: LintContext) -> Findings:
    if not skill.standalone and not context.graph.delegators(skill.name):
        return (
            _report(
                "unreachable",
                skill,
                skill.line_of("layer"),
                f"no skill delegates to this {skill.layer}, and it is not standalone",
                "add it to a delegates-to list, or remove it",
            ),
        )
    return ()


@_skill_rule("interaction-rules-missing", "molecule", "compound")
def _interaction_rules_missing(skill: Skill, context: LintContext) -> Findings:
    one_question, options = skill.interaction_rules
    missing = []
    if not one_question:
        missing.append("ask one question at a time")
    if not options:
        missing.append("offer lettered options `A) ... B) ...`, one recommended, plus free-form")
    if missing:
        return (
            _report(
                "interaction-rules-missing",
                skill,
                skill.body_line,
                f"the body does not state the interaction rule(s): {'; '.join(missing)}",
                "see the README's skill format for the two rules",
            ),
        )
    return ()


def _delegation_cycle(context: LintContext) -> Findings:
    skills = context.graph.skills
    return tuple(
        _report(
            "delegation-cycle",
            skills[cycle[0]],
            skills[cycle[0]].line_of_delegate(cycle[1 % len(cycle)]),
            "delegation cycle: " + " -> ".join([*cycle, cycle[0]]),
            "delegation must point down the layers",
        )
        for cycle in find_cycles(context.graph)
    )


GRAPH_CHECKS["delegation-cycle"] = _delegation_cycle
