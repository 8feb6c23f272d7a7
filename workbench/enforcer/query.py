"""`prime_query`: the best-matching skills at a projection level, within a token budget.

What matches:
- `scope`: "" or "all" (every skill); a layer ("compound", "molecule", "atom"), "unlayered" or
  "standalone"; "skill:NAME" (that skill); "under:NAME" (also "compound:NAME", "molecule:NAME":
  that skill and everything it delegates to, top-down); "focus:WORDS" (skills whose name,
  description or tags contain any of the words).
- `tags`: when given, a skill must carry at least one of them; a tag matches a declared tag
  (`tags` or `metadata.tags`), the skill's layer, or a hyphen-separated word of its name.
Most relevant first: for "under:" the delegation order from the top; otherwise by focus and tag
hits (a hit in the name counts most), then compounds before molecules before atoms, then by name.
Each skill is given at the asked level, or at the next smaller level when that is what fits; the
answer ends by naming what matched but did not fit.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from workbench.enforcer.verdict import Where
from workbench.skills.graph import SkillGraph
from workbench.skills.model import LAYER_RANK, Skill
from workbench.skills.projection import LEVELS, project, skill_tags, token_ceiling

SCOPE_HELP = (
    'scope is "", "all", "compound", "molecule", "atom", "unlayered", "standalone", '
    '"skill:NAME", "under:NAME" (or "compound:NAME"/"molecule:NAME") or "focus:WORDS"'
)
MIN_BLOCK_TOKENS = 16
"""Below this much budget left, no skill fits even as a summary: stop projecting."""
_WORD = re.compile(r"[\w]+")


class QueryError(ValueError):
    """A scope or level the query does not understand; the message says what it accepts."""


@dataclass
class QueryAnswer:
    """The text the model reads, and which skills it shows at which level."""

    text: str
    shown: list[tuple[str, str]] = field(default_factory=list)
    matched: int = 0


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2}


def _tag_words(skill: Skill) -> set[str]:
    return {*skill_tags(skill), *(skill.name.lower().split("-")), skill.layer or "unlayered"}


def _subtree(graph: SkillGraph, root: str) -> list[Skill]:
    order: list[Skill] = []
    seen: set[str] = set()
    frontier = [root]
    while frontier:
        following: list[str] = []
        for name in frontier:
            skill = graph.get(name)
            if skill is None or name in seen:
                continue
            seen.add(name)
            order.append(skill)
            following.extend(graph.children(name))
        frontier = following
    return order


def _in_scope(graph: SkillGraph, scope: str) -> tuple[list[Skill], set[str], bool]:
    """(candidates, focus words, whether the candidates' order is already the ranking)."""
    scope = scope.strip()
    kind, _, argument = scope.partition(":")
    everything = list(graph.skills.values())
    if scope in ("", "all"):
        return everything, set(), False
    if scope in ("compound", "molecule", "atom"):
        return [s for s in everything if s.layer == scope], set(), False
    if scope == "unlayered":
        return [s for s in everything if s.layer is None], set(), False
    if scope == "standalone":
        return [s for s in everything if s.layer and s.standalone], set(), False
    if kind in ("under", "compound", "molecule") and argument:
        return _subtree(graph, argument.strip()), set(), True
    if kind == "skill" and argument:
        found = graph.get(argument.strip())
        return ([found] if found else []), set(), True
    if kind == "focus" and argument.strip():
        return everything, _words(argument), False
    raise QueryError(f"unknown scope {scope!r}: {SCOPE_HELP}")


def _score(skill: Skill, focus: set[str], tags: set[str]) -> int:
    name_words = set(skill.name.lower().split("-"))
    score = 3 * len(focus & name_words)
    if focus:
        score += len(focus & (_words(skill.description) | set(skill_tags(skill))))
    return score + 2 * len(tags & _tag_words(skill))


def prime_query(
    graph: SkillGraph,
    where: Where,
    allowed: Callable[[str], bool],
    scope: str = "",
    level: str = "summary",
    tags: Iterable[str] = (),
    budget_tokens: int = 800,
) -> QueryAnswer:
    """The answer to one query (see the module's docstring for what matches)."""
    if level not in LEVELS:
        raise QueryError(f"unknown level {level!r}: level is summary, core or full")
    wanted_tags = {t.strip().lower() for t in tags if t.strip()}
    candidates, focus, ordered = _in_scope(graph, scope)
    scored = []
    for position, skill in enumerate(candidates):
        if not allowed(skill.name):
            continue
        if wanted_tags and not wanted_tags & _tag_words(skill):
            continue
        score = _score(skill, focus, wanted_tags)
        if focus and score == 0:
            continue
        rank = (position,) if ordered else (-score, LAYER_RANK[skill.layer], skill.name)
        scored.append((rank, skill))
    scored.sort(key=lambda pair: pair[0])
    matches = [skill for _, skill in scored]
    levels = LEVELS[: LEVELS.index(level) + 1][::-1]  # the asked level, then smaller ones
    blocks: list[str] = []
    shown: list[tuple[str, str]] = []
    left_out: list[str] = []
    used = 0
    for index, skill in enumerate(matches):
        if budget_tokens - used < MIN_BLOCK_TOKENS:
            left_out.extend(s.name for s in matches[index:])
            break
        for candidate_level in levels:
            block = f"### {skill.name} [{candidate_level}] {where(skill)}\n" + project(
                skill, candidate_level
            )
            cost = token_ceiling(block) + 1
            if used + cost <= budget_tokens:
                blocks.append(block)
                shown.append((skill.name, candidate_level))
                used += cost
                break
        else:
            left_out.append(skill.name)
    head = (
        f"{len(matches)} skills match (scope {scope or 'all'!r}"
        + (f", tags {sorted(wanted_tags)}" if wanted_tags else "")
        + f"); {len(shown)} shown, most relevant first, within {budget_tokens} tokens."
    )
    parts = [head, *blocks]
    if left_out:
        named = ", ".join(left_out[:20]) + (" ..." if len(left_out) > 20 else "")
        parts.append(
            f"{len(left_out)} more matched but did not fit: {named}. Raise budget_tokens, "
            'ask for level "summary", or narrow the scope.'
        )
    return QueryAnswer(text="\n\n".join(parts), shown=shown, matched=len(matches))
