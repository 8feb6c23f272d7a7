"""The graph rules: checks of layered skills, their delegation and the graph as a whole.

Ordinary skills without a layer are outside these rules (rules of scope `layered`).
"""

from __future__ import annotations

from workbench.skills.checks import Findings, GraphCheck, LintContext, SkillChecks, skill_finding
from workbench.skills.cycles import find_cycles
from workbench.skills.model import LAYER_BELOW, Skill

MAX_FANOUT = 10

SKILL_CHECKS = SkillChecks()


@SKILL_CHECKS.rule("atom-delegates", "atom")
def _atom_delegates(skill: Skill, context: LintContext) -> Findings:
    if skill.delegates_to:
        return (
            skill_finding(
                "atom-delegates",
                skill,
                skill.line_of("delegates-to"),
                "an atom does one thing and delegates to nothing",
                "make it a molecule, or remove `delegates-to`",
            ),
        )
    return ()


@SKILL_CHECKS.rule("delegates-missing", "molecule", "compound")
def _delegates_missing(skill: Skill, context: LintContext) -> Findings:
    if not skill.delegates_to:
        below = LAYER_BELOW[skill.layer or ""]
        return (
            skill_finding(
                "delegates-missing",
                skill,
                skill.line_of("delegates-to", default=skill.line_of("layer")),
                f"a {skill.layer} must name the {below}s it uses in `delegates-to`",
                f'add `delegates-to: "{below}-a {below}-b"` under metadata',
            ),
        )
    return ()


@SKILL_CHECKS.rule("delegate-unknown", "molecule", "compound")
def _delegate_unknown(skill: Skill, context: LintContext) -> Findings:
    return tuple(
        skill_finding(
            "delegate-unknown",
            skill,
            skill.line_of_delegate(target),
            f"delegates to `{target}`, which no skill is called",
            "fix the name or add the skill",
        )
        for target in skill.delegates_to
        if target not in context.graph
    )


@SKILL_CHECKS.rule("delegate-layer", "molecule", "compound")
def _delegate_layer(skill: Skill, context: LintContext) -> Findings:
    expected = LAYER_BELOW[skill.layer or ""]
    wrong = []
    for target in skill.delegates_to:
        other = context.graph.get(target)
        if other is not None and other.layer != expected:
            what = _a(other.layer) if other.layer else "an ordinary skill without a layer"
            wrong.append(
                skill_finding(
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


@SKILL_CHECKS.rule("atom-not-standalone", "atom")
def _atom_not_standalone(skill: Skill, context: LintContext) -> Findings:
    """Only an atom that does not say: `standalone: "false"` is a decision (the atom makes sense
    only under its molecule), a missing field is usually an oversight."""
    declared = "standalone" in skill.field_lines or "metadata.standalone" in skill.field_lines
    if not skill.standalone and not declared:
        return (
            skill_finding(
                "atom-not-standalone",
                skill,
                skill.line_of("layer"),
                "atom does not say whether it is standalone (a sub-agent cannot load it directly)",
                'add `standalone: "true"` under metadata, or `"false"` if it only makes sense '
                "under its molecule",
            ),
        )
    return ()


@SKILL_CHECKS.rule("fanout-high", "molecule", "compound")
def _fanout_high(skill: Skill, context: LintContext) -> Findings:
    if len(skill.delegates_to) > MAX_FANOUT:
        return (
            skill_finding(
                "fanout-high",
                skill,
                skill.line_of("delegates-to"),
                f"delegates to {len(skill.delegates_to)} skills; more than {MAX_FANOUT} is hard to "
                "orchestrate",
                "split it into smaller skills",
            ),
        )
    return ()


@SKILL_CHECKS.rule("unreachable", "molecule", "atom")
def _unreachable(skill: Skill, context: LintContext) -> Findings:
    if not skill.standalone and not context.graph.delegators(skill.name):
        return (
            skill_finding(
                "unreachable",
                skill,
                skill.line_of("layer"),
                f"no skill delegates to this {skill.layer}, and it is not standalone",
                "add it to a delegates-to list, or remove it",
            ),
        )
    return ()


@SKILL_CHECKS.rule("interaction-rules-missing", "molecule", "compound")
def _interaction_rules_missing(skill: Skill, context: LintContext) -> Findings:
    one_question, options = skill.interaction_rules
    missing = []
    if not one_question:
        missing.append("ask one question at a time")
    if not options:
        missing.append("offer lettered options `A) ... B) ...`, one recommended, plus free-form")
    if missing:
        return (
            skill_finding(
                "interaction-rules-missing",
                skill,
                skill.body_line,
                f"the body does not state the interaction rule(s): {'; '.join(missing)}",
                "see docs/skills.md for the two rules",
            ),
        )
    return ()


def _delegation_cycle(context: LintContext) -> Findings:
    skills = context.graph.skills
    return tuple(
        skill_finding(
            "delegation-cycle",
            skills[cycle[0]],
            skills[cycle[0]].line_of_delegate(cycle[1 % len(cycle)]),
            "delegation cycle: " + " -> ".join([*cycle, cycle[0]]),
            "delegation must point down the layers",
        )
        for cycle in find_cycles(context.graph)
    )


GRAPH_CHECKS: dict[str, GraphCheck] = {"delegation-cycle": _delegation_cycle}
