"""Run the lint rules over a loaded skill set and gather what they find.

Rules of scope `any` run on every skill, shadowed ones included; rules of scope `layered` run only
on skills that declare a layer, as ordinary skills are outside the graph rules. Findings made while
reading (parse and discovery rules) are already in the skill set and pass the same filter.
"""

from __future__ import annotations

from collections.abc import Collection

from workbench.errors import UsageError
from workbench.skills import evals_file, graph_checks, public_checks
from workbench.skills.checks import LintContext
from workbench.skills.discover import SkillSet
from workbench.skills.model import LAYERS, Diagnostic
from workbench.skills.rules import RULES

SKILL_CHECKS = {
    **public_checks.SKILL_CHECKS,
    **evals_file.SKILL_CHECKS,
    **graph_checks.SKILL_CHECKS,
}


def check_rule_ids(rule_ids: Collection[str]) -> None:
    """Raise UsageError for ids that name no rule."""
    unknown = sorted(set(rule_ids) - RULES.keys())
    if unknown:
        raise UsageError(
            f"unknown rule id: {', '.join(unknown)} (docs/lint-rules.md lists the rules)"
        )


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
    for rule, graph_check in graph_checks.GRAPH_CHECKS.items():
        if rule in wanted:
            found.extend(graph_check(context))
    found.sort(key=lambda d: (str(d.path), d.line, d.rule))
    return found
