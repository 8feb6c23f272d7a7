"""The skills section of the system prompt: the graph's topology, its rules, the unlayered listing.

It is rendered once per skill set and appended to the system prompt unchanged on every turn, so the
prompt cache keeps hitting; it changes only when the skill set reloads. It stays within a token
budget (`enforcer.prompt_budget_tokens`, default 2,000) and under `MAX_BYTES` whatever the number
of skills: a big graph is shown with less detail (molecules with atom counts, then compounds with
counts, then as many compounds as fit), and the model is told how to ask for the rest
(`prime_query`). Unlayered skills keep the usual `<available_skills>` listing, bounded the same way.
Tools the session does not offer (`--tools`, an agent's `tools:`) are not mentioned (`Hints`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from xml.sax.saxutils import escape

from workbench.enforcer.allowlist import Allowlist
from workbench.enforcer.verdict import Where, delegates_below
from workbench.skills.graph import SkillGraph
from workbench.skills.model import Skill
from workbench.skills.projection import first_sentence, fit, token_ceiling
from workbench.text import count_of

DEFAULT_BUDGET_TOKENS = 2000
MIN_BUDGET_TOKENS = 600
"""The smallest budget the section can keep: the intro, rules and template take about 400 tokens
whatever the graph, and a shortened unlayered listing about 100 more."""
MAX_BYTES = 8000
"""A ceiling on the whole section, whatever the budget (pi's flat list costs ~272 B a skill)."""

INTRO = (
    "## Skill graph\n\n"
    "This project's skills are layered. A compound is a whole workflow and the entry point; it "
    "delegates to molecules (scoped tasks); a molecule delegates to atoms (single operations). "
    "Load a skill by reading its SKILL.md with the read tool"
)
RULES = (
    "### Rules\n"
    "1. Start from a compound: read its SKILL.md first, then load only the molecules it "
    "delegates to.\n"
    "2. Do not skip a layer: a compound loads molecules, a molecule loads atoms, an atom loads "
    "no skill.\n"
    "3. Load on demand: read a skill only when you reach the step that needs it.\n"
    "4. Do not load a skill twice: what you loaded is still in your context above."
)
TEMPLATE = (
    "### Loading template\n"
    "1. read <compound>/SKILL.md - the entry point: the whole workflow\n"
    "2. read <molecule>/SKILL.md - the molecule for the step you are on\n"
    "3. read <atom>/SKILL.md - when the molecule tells you to\n"
    "4. do what the atom says, then go back to the molecule's next step\n"
    "After each skill read, a line at the end of the result names what you may load next, and "
    "where."
)
LISTING_INTRO = (
    "The following skills provide specialized instructions for specific tasks. Use the read tool "
    "to load a skill's file when the task matches its description."
)


@dataclass(frozen=True)
class Hints:
    """The section's words for the enforcer's tools, mentioned only when the model has them."""

    activate: bool = True
    query: bool = True

    @classmethod
    def for_tools(cls, offered: Iterable[str] | None) -> Hints:
        """Hints for the tools `offered` (None: not known, all of them)."""
        if offered is None:
            return cls()
        names = set(offered)
        return cls("skill_activate" in names, "prime_query" in names)

    def intro(self) -> str:
        return INTRO + (", or call skill_activate(name)." if self.activate else ".")

    def compound_detail(self) -> str:
        if self.query:
            return (
                'For one compound\'s molecules and atoms, call prime_query(scope="compound:NAME", '
                'level="summary").'
            )
        return "A compound's SKILL.md names its molecules, and a molecule's SKILL.md its atoms."

    def more_compounds(self, left: int) -> str:
        if self.query:
            return (
                f'{left} more compounds: prime_query(scope="compound", level="summary") lists '
                "them all."
            )
        return f"{left} more compounds are not listed here."

    def standalone_count(self, count: int) -> str:
        if self.query:
            return (
                f"{count_of(count, 'skill')} may be loaded directly; "
                'prime_query(scope="standalone", level="summary") lists them.'
            )
        return (
            f"{count_of(count, 'skill')} may be loaded directly "
            "(their frontmatter marks them standalone)."
        )

    def more_skills(self, left: int) -> str:
        if self.query:
            return (
                f"{left} more skills are not listed here: find them with "
                'prime_query(scope="focus:WORDS", level="summary") or prime_query(tags=[...]).'
            )
        return f"{left} more skills are not listed here."


def _fits(text: str, tokens: int, max_bytes: int) -> bool:
    return token_ceiling(text) <= tokens and len(text.encode()) <= max_bytes


def _within(lines: Iterable[str], max_bytes: int) -> list[str] | None:
    """`lines`, or None as soon as they alone, joined, pass `max_bytes`: a text made of them
    cannot fit, and the rest need not be made (a 5,000-skill graph would make ~1.2 MB of them)."""
    kept: list[str] = []
    size = -1
    for line in lines:
        size += len(line.encode()) + 1
        if size > max_bytes:
            return None
        kept.append(line)
    return kept


def _as_many_as_fit(
    items: Iterable[str],
    count: int,
    build: Callable[[list[str], int], str],
    tokens: int,
    max_bytes: int,
) -> str:
    """`build(first items, how many are left)` with as many of the `count` items as fit, in
    order; items past the first that does not fit are never made."""
    shown: list[str] = []
    for item in items:
        candidate = [*shown, item]
        if not _fits(build(candidate, count - len(candidate)), tokens, max_bytes):
            break
        shown = candidate
    return build(shown, count - len(shown))


class _Topology:
    """The allowed layered skills of a graph, arranged compound -> molecules -> atoms."""

    def __init__(self, graph: SkillGraph, allowed: Callable[[str], bool], where: Where) -> None:
        self.graph = graph
        self.where = where
        listed = [s for s in graph.skills.values() if allowed(s.name) and s.offered_to_model]
        self.compounds = sorted((s for s in listed if s.layer == "compound"), key=lambda s: s.name)
        self.standalone = sorted(
            (s for s in listed if s.layer and s.standalone), key=lambda s: s.name
        )
        self._allowed = allowed

    def below(self, name: str) -> list[str]:
        skill = self.graph.get(name)
        return list(delegates_below(self.graph, skill, self._allowed)) if skill else []

    def head(self, compound: Skill) -> str:
        about = fit(first_sentence(compound.description), 40)
        return f"- {escape(compound.name)} ({escape(self.where(compound))}): {escape(about)}"

    def counted(self, compound: Skill) -> str:
        molecules = self.below(compound.name)
        atoms = {a for m in molecules for a in self.below(m)}
        counts = f"{count_of(len(molecules), 'molecule')}, {count_of(len(atoms), 'atom')}"
        return f"{self.head(compound)} [{counts}]"

    def tree(self, detail: str) -> Iterator[str]:
        """Compound lines at `detail`: `full` (atoms named), `molecules` (counted), `counts`;
        made as they are read."""
        for compound in self.compounds:
            if detail == "counts":
                yield self.counted(compound)
                continue
            yield self.head(compound)
            for molecule in self.below(compound.name):
                atoms = [escape(atom) for atom in self.below(molecule)]
                if detail == "full":
                    named = ", ".join(atoms) if atoms else "(no atoms)"
                    yield f"  - {escape(molecule)}: {named}"
                else:
                    yield f"  - {escape(molecule)} [{count_of(len(atoms), 'atom')}]"

    def standalone_part(self, named: bool, hints: Hints) -> str:
        if not self.standalone:
            return ""
        if named:
            names = ", ".join(escape(s.name) for s in self.standalone)
            return f"### Standalone skills (may be loaded directly)\n{names}"
        return f"### Standalone skills\n{hints.standalone_count(len(self.standalone))}"


def _layered_section(topology: _Topology, tokens: int, max_bytes: int, hints: Hints) -> str:
    """The most detailed rendering of the layered graph that fits."""
    more = hints.compound_detail()

    def assemble(lines: list[str], standalone: str, tail: str = "") -> str:
        parts = [hints.intro(), "### Compounds (entry points)\n" + "\n".join(lines) + tail]
        parts += [standalone] if standalone else []
        return "\n\n".join([*parts, RULES, TEMPLATE])

    tiers = [("full", True, ""), ("molecules", True, "\n" + more)]
    tiers += [("molecules", False, "\n" + more), ("counts", False, "\n" + more)]
    for detail, named, tail in tiers:
        lines = _within(topology.tree(detail), max_bytes)
        if lines is None:
            continue
        text = assemble(lines, topology.standalone_part(named, hints), tail)
        if _fits(text, tokens, max_bytes):
            return text
    standalone = topology.standalone_part(False, hints)

    def truncated(lines: list[str], left: int) -> str:
        return assemble(lines, standalone, f"\n... and {hints.more_compounds(left)} {more}")

    count = len(topology.compounds)
    return _as_many_as_fit(topology.tree("counts"), count, truncated, tokens, max_bytes)


def _listing(skills: list[Skill], where: Where, tokens: int, max_bytes: int, hints: Hints) -> str:
    """pi's `<available_skills>` listing of unlayered skills, as detailed as fits."""

    def entry(skill: Skill, description: str) -> str:
        return (
            f"  <skill>\n    <name>{escape(skill.name)}</name>\n"
            f"    <description>{escape(description)}</description>\n"
            f"    <location>{escape(where(skill))}</location>\n  </skill>"
        )

    def assemble(entries: list[str], tail: str = "") -> str:
        body = "\n".join(entries)
        return f"{LISTING_INTRO}\n\n<available_skills>\n{body}\n</available_skills>{tail}"

    def short() -> Iterator[str]:
        return (entry(s, fit(first_sentence(s.description), 40)) for s in skills)

    for entries in ((entry(s, s.description) for s in skills), short()):
        kept = _within(entries, max_bytes)
        if kept is not None and _fits(text := assemble(kept), tokens, max_bytes):
            return text

    def truncated(entries: list[str], left: int) -> str:
        return assemble(entries, "\n" + hints.more_skills(left))

    return _as_many_as_fit(short(), len(skills), truncated, tokens, max_bytes)


def render_flat(
    graph: SkillGraph,
    where: Where,
    allowlist: Allowlist | None = None,
    budget_tokens: int = DEFAULT_BUDGET_TOKENS,
    hints: Hints | None = None,
) -> str:
    """Every allowed skill as one flat `<available_skills>` list of name, description and
    location, as pi and Claude Code offer skills: no layers, no topology, no rules (the
    `skills.catalog: "flat"` setting, which evals compare against the graph)."""
    allowed = (allowlist or Allowlist()).allows
    skills = sorted(
        (s for s in graph.skills.values() if allowed(s.name) and s.offered_to_model),
        key=lambda s: s.name,
    )
    if not skills:
        return ""
    return _listing(skills, where, budget_tokens, MAX_BYTES, hints or Hints())


def render(
    graph: SkillGraph,
    where: Where,
    allowlist: Allowlist | None = None,
    budget_tokens: int = DEFAULT_BUDGET_TOKENS,
    hints: Hints | None = None,
) -> str:
    """The whole skills section for the system prompt ("" when there are no allowed skills)."""
    hints = hints or Hints()
    allowed = (allowlist or Allowlist()).allows
    topology = _Topology(graph, allowed, where)
    unlayered = [s for s in graph.unlayered() if allowed(s.name) and s.offered_to_model]
    has_layered = bool(topology.compounds or topology.standalone)
    if not has_layered and not unlayered:
        return ""
    if not unlayered:
        return _layered_section(topology, budget_tokens, MAX_BYTES, hints)
    if not has_layered:
        return _listing(unlayered, where, budget_tokens, MAX_BYTES, hints)
    listing_full = _listing(unlayered, where, budget_tokens, MAX_BYTES, hints)
    share = budget_tokens // 2, MAX_BYTES // 2
    layered_tokens = max(share[0], budget_tokens - token_ceiling(listing_full))
    layered_bytes = max(share[1], MAX_BYTES - len(listing_full.encode()) - 2)
    layered = _layered_section(topology, layered_tokens, layered_bytes, hints)
    # The blank line that joins the two parts costs up to one token of its own.
    listing = _listing(
        unlayered,
        where,
        budget_tokens - token_ceiling(layered) - 1,
        MAX_BYTES - len(layered.encode()) - 2,
        hints,
    )
    return layered + "\n\n" + listing
