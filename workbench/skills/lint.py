"""Lint rules over a loaded skill set: one small check per rule id.

A check looks at one skill (`SKILL_CHECKS`) or at the whole graph (`GRAPH_CHECKS`). Rules of
scope `any` run on every skill, shadowed ones included; rules of scope `layered` run only on
skills that declare a layer, as ordinary skills are outside the graph rules. Findings made while
reading (parse and discovery rules) are already in the skill set and pass the same filter.
Nothing here imports networkx: cycles are found with a small DFS over the graph's index.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from functools import cached_property

from workbench.errors import UsageError
from workbench.skills.body import states_one_question_rule, states_options_rule
from workbench.skills.discover import SkillSet
from workbench.skills.graph import SkillGraph
from workbench.skills.model import LAYER_BELOW, Diagnostic, Skill
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

    @cached_property
    def cycles(self) -> list[list[str]]:
        return _cycles(self.graph)


SkillCheck = Callable[[Skill, LintContext], Iterator[Diagnostic]]
GraphCheck = Callable[[LintContext], Iterator[Diagnostic]]
SKILL_CHECKS: dict[str, SkillCheck] = {}
GRAPH_CHECKS: dict[str, GraphCheck] = {}


def _skill_rule(rule: str) -> Callable[[SkillCheck], SkillCheck]:
    def register(check: SkillCheck) -> SkillCheck:
        SKILL_CHECKS[rule] = check
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
    checks = [(RULES[r].scope, c) for r, c in SKILL_CHECKS.items() if r in wanted]
    for skill in [*graph.skills.values(), *skills.shadowed]:
        in_graph = skill.layer is not None and graph.get(skill.name) is skill
        for scope, check in checks:
            if scope == "any" or in_graph:
                found.extend(check(skill, context))
    for rule, graph_check in GRAPH_CHECKS.items():
        if rule in wanted:
            found.extend(graph_check(context))
    found.sort(key=lambda d: (str(d.path), d.line, d.rule))
    return found


# Public rules: every skill.


@_skill_rule("name-missing")
def _name_missing(skill: Skill, context: LintContext) -> Iterator[Diagnostic]:
    name = skill.frontmatter.get("name")
    if skill.has_frontmatter and (name is None or (isinstance(name, str) and not name.strip())):
        yield _report(
            "name-missing",
            skill,
            skill.line_of("name"),
            f"no name; the folder name `{skill.name}` is used",
            f"add `name: {skill.name}`",
        )


def _declared_name(skill: Skill) -> str | None:
    name = skill.frontmatter.get("name")
    return name if isinstance(name, str) and name.strip() else None


@_skill_rule("name-format")
def _name_format(skill: Skill, context: LintContext) -> Iterator[Diagnostic]:
    name = _declared_name(skill)
    if name is not None and not NAME_PATTERN.fullmatch(name):
        yield _report(
            "name-format",
            skill,
            skill.line_of("name"),
            f"name `{name}` must be lowercase letters, digits and single hyphens",
            f"for example `{_suggest_name(name)}`",
        )


def _suggest_name(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "my-skill"


@_skill_rule("name-too-long")
def _name_too_long(skill: Skill, context: LintContext) -> Iterator[Diagnostic]:
    name = _declared_name(skill)
    if name is not None and len(name) > MAX_NAME:
        yield _report(
            "name-too-long",
            skill,
            skill.line_of("name"),
            f"name has {len(name)} characters; at most {MAX_NAME} are allowed",
        )


@_skill_rule("name-mismatch")
def _name_mismatch(skill: Skill, context: LintContext) -> Iterator[Diagnostic]:
    name, folder = _declared_name(skill), skill.path.parent.name
    if name is not None and name != folder:
        yield _report(
            "name-mismatch",
            skill,
            skill.line_of("name"),
            f"name `{name}` differs from its folder `{folder}`",
            "rename the folder or the skill so that they match",
        )


@_skill_rule("description-missing")
def _description_missing(skill: Skill, context: LintContext) -> Iterator[Diagnostic]:
    description = skill.frontmatter.get("description")
    if not skill.has_frontmatter or not isinstance(description, (str, type(None))):
        return  # no fields were read, or the parser reported a description that is not text
    if not skill.description:
        yield _report(
            "description-missing",
            skill,
            skill.line_of("description"),
            "no description; agents choose skills by their description",
            "add `description:` saying what the skill does and when to use it",
        )


@_skill_rule("description-too-long")
def _description_too_long(skill: Skill, context: LintContext) -> Iterator[Diagnostic]:
    if len(skill.description) > MAX_DESCRIPTION:
        yield _report(
            "description-too-long",
            skill,
            skill.line_of("description"),
            f"description has {len(skill.description)} characters; at most {MAX_DESCRIPTION}",
            "move detail into the body",
        )


@_skill_rule("unknown-field")
def _unknown_field(skill: Skill, context: LintContext) -> Iterator[Diagnostic]:
    for key in skill.frontmatter:
        if key not in KNOWN_FIELDS:
            yield _report(
                "unknown-field",
                skill,
                skill.line_of(str(key)),
                f"unknown field `{key}`",
                "move it under `metadata:`",
            )


@_skill_rule("reference-broken")
def _reference_broken(skill: Skill, context: LintContext) -> Iterator[Diagnostic]:
    folder = str(skill.path.parent)
    for reference in skill.references:
        # `..` must be folded before the lookup, which pathlib does not do.
        target = os.path.normpath(os.path.join(folder, reference.target))  # noqa: PTH118
        if target not in context.skill_files and not os.path.exists(target):  # noqa: PTH110
            yield _report(
                "reference-broken",
                skill,
                reference.line,
                f"`{reference.target}` does not exist",
                "paths in the body are relative to the skill's folder",
            )


# Graph rules: layered skills only.


@_skill_rule("atom-delegates")
def _atom_delegates(skill: Skill, context: LintContext) -> Iterator[Diagnostic]:
    if skill.layer == "atom" and skill.delegates_to:
        yield _report(
            "atom-delegates",
            skill,
            skill.line_of("delegates-to"),
            "an atom does one thing and delegates to nothing",
            "make it a molecule, or remove `delegates-to`",
        )


@_skill_rule("delegates-missing")
def _delegates_missing(skill: Skill, context: LintContext) -> Iterator[Diagnostic]:
    if skill.layer in LAYER_BELOW and not skill.delegates_to:
        below = LAYER_BELOW[skill.layer]
        yield _report(
            "delegates-missing",
            skill,
            skill.line_of("delegates-to", default=skill.line_of("layer")),
            f"a {skill.layer} must name the {below}s it uses in `delegates-to`",
            f'add `delegates-to: "{below}-a {below}-b"` under metadata',
        )


@_skill_rule("delegate-unknown")
def _delegate_unknown(skill: Skill, context: LintContext) -> Iterator[Diagnostic]:
    for target in skill.delegates_to:
        if target not in context.graph:
            yield _report(
                "delegate-unknown",
                skill,
                skill.line_of_delegate(target),
                f"delegates to `{target}`, which no skill is called",
                "fix the name or add the skill",
            )


@_skill_rule("delegate-layer")
def _delegate_layer(skill: Skill, context: LintContext) -> Iterator[Diagnostic]:
    expected = LAYER_BELOW.get(skill.layer or "")
    if expected is None:
        return  # atoms are covered by atom-delegates
    for target in skill.delegates_to:
        other = context.graph.get(target)
        if other is not None and other.layer != expected:
            what = f"a {other.layer}" if other.layer else "an ordinary skill without a layer"
            yield _report(
                "delegate-layer",
                skill,
                skill.line_of_delegate(target),
                f"delegates to `{target}`, {what}; a {skill.layer} delegates to {expected}s",
                "compound -> molecule -> atom, one layer at a time",
            )


@_skill_rule("atom-not-standalone")
def _atom_not_standalone(skill: Skill, context: LintContext) -> Iterator[Diagnostic]:
    if skill.layer == "atom" and not skill.standalone:
        yield _report(
            "atom-not-standalone",
            skill,
            skill.line_of("layer"),
            "atom is not standalone, so a sub-agent cannot load it directly",
            'add `standalone: "true"` under metadata',
        )


@_skill_rule("fanout-high")
def _fanout_high(skill: Skill, context: LintContext) -> Iterator[Diagnostic]:
    if len(skill.delegates_to) > MAX_FANOUT:
        yield _report(
            "fanout-high",
            skill,
            skill.line_of("delegates-to"),
            f"delegates to {len(skill.delegates_to)} skills; more than {MAX_FANOUT} is hard to "
            "orchestrate",
            "split it into smaller skills",
        )


@_skill_rule("unreachable")
def _unreachable(skill: Skill, context: LintContext) -> Iterator[Diagnostic]:
    if (
        skill.layer in ("molecule", "atom")
        and not skill.standalone
        and not context.graph.delegators(skill.name)
    ):
        yield _report(
            "unreachable",
            skill,
            skill.line_of("layer"),
            f"no skill delegates to this {skill.layer}, and it is not standalone",
            "add it to a delegates-to list, or remove it",
        )


@_skill_rule("interaction-rules-missing")
def _interaction_rules_missing(skill: Skill, context: LintContext) -> Iterator[Diagnostic]:
    if skill.layer not in ("molecule", "compound"):
        return
    missing = []
    if not states_one_question_rule(skill.body):
        missing.append("ask one question at a time")
    if not states_options_rule(skill.body):
        missing.append("offer lettered options `A) ... B) ...`, one recommended, plus free-form")
    if missing:
        yield _report(
            "interaction-rules-missing",
            skill,
            skill.body_line,
            f"the body does not state the interaction rule(s): {'; '.join(missing)}",
            "see the README's skill format for the two rules",
        )


def _delegation_cycle(context: LintContext) -> Iterator[Diagnostic]:
    for cycle in context.cycles:
        skill = context.graph.skills[cycle[0]]
        yield _report(
            "delegation-cycle",
            skill,
            skill.line_of_delegate(cycle[1 % len(cycle)]),
            "delegation cycle: " + " -> ".join([*cycle, cycle[0]]),
            "delegation must point down the layers",
        )


GRAPH_CHECKS["delegation-cycle"] = _delegation_cycle


def _cycles(graph: SkillGraph) -> list[list[str]]:
    """One cycle per strongly connected component of the delegation graph (Tarjan, iterative),
    each starting at its smallest name."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    cycles: list[list[str]] = []

    def successors(name: str) -> list[str]:
        return [t for t in graph.children(name) if t in graph and graph.skills[t].layer]

    for start in sorted(graph.skills):
        if start in index or graph.skills[start].layer is None:
            continue
        work = [(start, iter(successors(start)))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(successors(child))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph.children(node):
                    cycles.append(_cycle_in(graph, set(component)))
    return sorted(cycles)


def _cycle_in(graph: SkillGraph, component: set[str]) -> list[str]:
    """A simple cycle through the smallest name of a strongly connected component."""
    first = min(component)
    parents: dict[str, str] = {}
    queue = [first]
    for name in queue:  # breadth first, so the cycle found is a shortest one
        for child in graph.children(name):
            if child == first:
                path = [name]
                while path[-1] != first:
                    path.append(parents[path[-1]])
                return path[::-1]
            if child in component and child not in parents:
                parents[child] = name
                queue.append(child)
    return [first]
