"""What a lint check is: a function of one skill or of the whole graph, and what it may look at.

Each check returns a tuple of findings (usually empty): cheaper than a generator per call, which
matters at 10,000 skills. The checks live in `public_checks` and `graph_checks`; `lint` runs them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from workbench.skills.graph import SkillGraph
from workbench.skills.model import Diagnostic, Layer, Skill
from workbench.skills.rules import finding


@dataclass
class LintContext:
    """What checks may look at besides the skill: the graph, and every SKILL.md found."""

    graph: SkillGraph
    skill_files: frozenset[str]


Findings = tuple[Diagnostic, ...]
SkillCheck = Callable[[Skill, LintContext], Findings]
GraphCheck = Callable[[LintContext], Findings]


class SkillChecks(dict[str, tuple[SkillCheck, tuple[Layer, ...]]]):
    """Rule id -> (check, the layers it looks at; empty for every skill of the rule's scope)."""

    def rule(self, rule: str, *layers: Layer) -> Callable[[SkillCheck], SkillCheck]:
        """A decorator that enters the check it decorates under `rule`."""

        def register(check: SkillCheck) -> SkillCheck:
            self[rule] = (check, layers)
            return check

        return register


def skill_finding(
    rule: str, skill: Skill, line: int, message: str, hint: str | None = None
) -> Diagnostic:
    """A finding of `rule` about `skill`, at `line` of its SKILL.md."""
    return finding(rule, skill.path, line, message, hint, skill.name)
