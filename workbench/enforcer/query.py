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
The skills are given in that order, each at the asked level or at the next smaller level when that
is what fits; the first one that does not fit ends the list (a less relevant skill is never shown
in its place), and the closing line names what is not shown and how to see it. The whole answer
(first line and closing line included) stays within the budget, by `token_ceiling`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from workbench.enforcer.verdict import Where
from workbench.skills.graph import SkillGraph
from workbench.skills.model import LAYER_RANK, Skill
from workbench.skills.projection import LEVELS, project, skill_tags, token_ceiling
from workbench.text import count_of

SCOPE_HELP = (
    'scope is "", "all", "compound", "molecule", "atom", "unlayered", "standalone", '
    '"skill:NAME", "under:NAME" (or "compound:NAME"/"molecule:NAME") or "focus:WORDS"'
)
MAX_NAMED = 20
"""The closing line names at most this many of the skills not shown."""
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


def _rank(
    graph: SkillGraph, allowed: Callable[[str], bool], scope: str, tags: set[str]
) -> list[Skill]:
    """The skills that match, most relevant first."""
    candidates, focus, ordered = _in_scope(graph, scope)
    scored = []
    for position, skill in enumerate(candidates):
        if not allowed(skill.name):
            continue
        if tags and not tags & _tag_words(skill):
            continue
        score = _score(skill, focus, tags)
        if focus and score == 0:
            continue
        rank = (position,) if ordered else (-score, LAYER_RANK[skill.layer], skill.name)
        scored.append((rank, skill))
    scored.sort(key=lambda pair: pair[0])
    return [skill for _, skill in scored]


def _cost(text: str) -> int:
    """What a part of the answer takes of the budget, the blank line before it included. The
    parts' costs add up to at least the whole answer's upper bound (`token_ceiling` of a joined
    text is at most the sum of its parts')."""
    return token_ceiling(text) + 1


def _rest_line(rest: list[Skill], level: str, names: int = 0) -> str:
    """The closing line: how many matched but are not shown, the first `names` of them, and what
    would bring them in."""
    listed = [s.name for s in rest[:names]]
    if len(rest) > len(listed) > 0:
        listed.append(f"and {len(rest) - len(listed)} more")
    first = rest[0]
    narrower = f"under:{first.name}" if first.delegates_to else f"skill:{first.name}"
    smaller = ', ask for level "summary",' if level != "summary" else ""
    return (
        f"{len(rest)} more not shown"
        + (": " + ", ".join(listed) if listed else "")
        + f'. Raise budget_tokens{smaller} or narrow the scope (e.g. "{narrower}").'
    )


def _closing(rest: list[Skill], level: str, room: int) -> str:
    """The closing line naming as many of `rest` as fit in `room` (at most MAX_NAMED)."""
    names = 0
    while names < min(len(rest), MAX_NAMED) and _cost(_rest_line(rest, level, names + 1)) <= room:
        names += 1
    return _rest_line(rest, level, names)


def prime_query(
    graph: SkillGraph,
    where: Where,
    allowed: Callable[[str], bool],
    scope: str = "",
    level: str = "summary",
    tags: Iterable[str] = (),
    budget_tokens: int = 800,
) -> QueryAnswer:
    """The answer to one query (see the module's docstring for what matches). Everything it
    returns counts against `budget_tokens`: the first line, the skills, the closing line."""
    if level not in LEVELS:
        raise QueryError(f"unknown level {level!r}: level is summary, core or full")
    wanted_tags = {t.strip().lower() for t in tags if t.strip()}
    matches = _rank(graph, allowed, scope, wanted_tags)

    def head(shown: int) -> str:
        return (
            f"{count_of(len(matches), 'skill')} {'matches' if len(matches) == 1 else 'match'} "
            f"{scope or 'all'!r}"
            + (f" with tags {', '.join(sorted(wanted_tags))}" if wanted_tags else "")
            + f"; {shown} shown ({level}), most relevant first."
        )

    used = token_ceiling(head(len(matches)))  # as many digits as it can ever need
    least = used + (_cost(_rest_line(matches, level)) if matches else 0)
    if least > budget_tokens:
        raise QueryError(
            f"budget_tokens {budget_tokens} is too small for an answer: use at least {least}"
        )
    levels = LEVELS[: LEVELS.index(level) + 1][::-1]  # the asked level, then smaller ones
    blocks: list[str] = []
    shown: list[tuple[str, str]] = []
    for index, skill in enumerate(matches):
        after = matches[index + 1 :]
        reserve = _cost(_rest_line(after, level)) if after else 0
        for candidate in levels:
            marked = f" ({candidate})" if candidate != level else ""
            block = f"### {where(skill)}{marked}\n" + project(skill, candidate)
            if used + _cost(block) + reserve <= budget_tokens:
                blocks.append(block)
                shown.append((skill.name, candidate))
                used += _cost(block)
                break
        else:
            break  # the most relevant left does not fit: stop rather than show a lesser one
    parts = [head(len(shown)), *blocks]
    rest = matches[len(shown) :]
    if rest:
        parts.append(_closing(rest, level, budget_tokens - used))
    return QueryAnswer(text="\n\n".join(parts), shown=shown, matched=len(matches))
