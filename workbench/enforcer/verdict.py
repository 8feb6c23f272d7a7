"""The check of one skill load against the graph's top-down rules (seed 000, §3.5).

A compound is always an entry point; a standalone skill may be loaded directly; a molecule needs a
loaded compound that delegates to it; an atom needs a loaded molecule that delegates to it. Then the
re-entrance notices: a skill above the current one on the delegation chain is a cycle (going back
up instead of continuing), any other skill whose whole text was loaded within the last
`REPEAT_WINDOW` whole loads is a repeat (a partial view before does not make a full read a repeat).

The check costs the same at 10 skills and at 10,000: it asks the graph's index for the skills of the
layer above (`parents_above`, a dict lookup) and looks those few up in the loaded set. Only a
violation walks further, to name the skills to load first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from workbench.enforcer.state import LoadingState
from workbench.skills.graph import SkillGraph
from workbench.skills.model import LAYER_BELOW, Skill
from workbench.text import count_of

MAX_NAMED = 3
"""How many alternatives a suggestion names before it says how many more there are."""

Where = Callable[[Skill], str]
"""Names a skill's file for the model (see `locations.location`)."""
Allowed = Callable[[str], bool]
"""Whether the project's allowlist lets a skill of this name be loaded."""


def allow_all(_name: str) -> bool:
    """The allowlist of a project that sets none."""
    return True


def delegates_below(
    graph: SkillGraph, skill: Skill, allowed: Allowed = allow_all
) -> tuple[str, ...]:
    """What `skill` delegates to that the rules let it load: allowed, known skills of the layer
    directly below (a compound's molecules, a molecule's atoms), in declared order. Edges that
    skip or climb a layer, or name no skill, are lint findings and are not offered to the model;
    nor are skills the allowlist refuses."""
    below = LAYER_BELOW.get(skill.layer or "")
    return tuple(
        name
        for name in graph.children(skill.name)
        if (child := graph.get(name)) is not None and child.layer == below and allowed(name)
    )


@dataclass(frozen=True)
class Verdict:
    """The outcome for one load: `kind` is ok, violation, cycle or repeat; `via` is the loaded
    skill of the layer above that allowed it."""

    skill: Skill
    kind: str
    reason: str = ""
    suggestion: str = ""
    via: str | None = None

    @property
    def ok(self) -> bool:
        return self.kind == "ok"


def _listed(names: list[str], where: Callable[[str], str]) -> str:
    shown = [f"`{n}` ({where(n)})" for n in names[:MAX_NAMED]]
    more = len(names) - MAX_NAMED
    text = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]
    return text + (f" (or one of {more} more)" if more > 0 else "")


class Checker:
    """Checks loads against one graph; `where` names skill files in suggestions, which name only
    skills the allowlist (`allowed`) lets the model load."""

    def __init__(self, graph: SkillGraph, where: Where, allowed: Allowed = allow_all) -> None:
        self.graph = graph
        self._where = where
        self._allowed = allowed

    def _parents(self, name: str) -> list[str]:
        """The allowed skills of the layer above that delegate to `name`, by name."""
        return sorted(p for p in self.graph.parents_above(name) if self._allowed(p))

    def _file(self, name: str) -> str:
        skill = self.graph.get(name)
        return self._where(skill) if skill else name

    def check(self, skill: Skill, state: LoadingState) -> Verdict:
        """The verdict for loading `skill` now."""
        via = self._loaded_parent(skill, state)
        layer_ok = skill.layer in (None, "compound") or skill.standalone or via is not None
        if not layer_ok:
            reason, suggestion = self._skipped(skill, state)
            return Verdict(skill, "violation", reason, suggestion)
        if skill.name in state.chain[:-1]:
            chain = " → ".join(state.chain)
            return Verdict(
                skill,
                "cycle",
                f"`{skill.name}` is already on your current delegation chain ({chain}); "
                "loading it again goes round in a loop.",
                f"Its instructions are already in your context: continue from where you are in "
                f"`{state.chain[-1]}` instead of reading `{skill.name}` again.",
                via,
            )
        if skill.name in state.recent:
            ago = list(reversed(state.recent)).index(skill.name) + 1
            return Verdict(
                skill,
                "repeat",
                f"`{skill.name}` was already loaded {count_of(ago, 'load')} ago.",
                "Its text is still in your context above: use it instead of loading it again.",
                via,
            )
        return Verdict(skill, "ok", via=via)

    def _loaded_parent(self, skill: Skill, state: LoadingState) -> str | None:
        """The loaded skill of the layer above that delegates to `skill`, preferring the one on
        the current chain."""
        parents = self.graph.parents_above(skill.name)
        if not parents:
            return None
        for name in reversed(state.chain):
            if name in parents:
                return name
        loaded = [p for p in parents if p in state.loaded]
        return min(loaded) if loaded else None

    def _skipped(self, skill: Skill, state: LoadingState) -> tuple[str, str]:
        """What was skipped, and which skills to load first, by name and file."""
        name, layer = skill.name, skill.layer
        above = "compound" if layer == "molecule" else "molecule"
        parents = self._parents(name)
        if not parents:
            allowed = " this project allows" if self.graph.parents_above(name) else ""
            return (
                f"The {layer} `{name}` was loaded directly, but no {above}{allowed} delegates to "
                "it and it is not marked standalone, so no top-down path leads to it.",
                f"Do not use `{name}` on its own. Start from a compound of the skill graph that "
                "fits the task; use this skill only if the user asks for it by name.",
            )
        reason = (
            f"The {layer} `{name}` was loaded without a {above} that delegates to it: "
            f"you skipped the {above} layer."
        )
        if layer == "molecule":
            return reason, (
                f"Load the compound first: {_listed(parents, self._file)}. "
                f"Follow it; it tells you when to load `{name}`."
            )
        ready = [m for m in parents if self._reachable_now(m, state)]
        if ready:
            return reason, (
                f"Load the molecule first: {_listed(ready, self._file)}. "
                f"It tells you when to use `{name}`."
            )
        routed = [m for m in parents if self._parents(m)]
        if not routed:
            return reason, (
                f"Load the molecule first: {_listed(parents, self._file)}. "
                f"It tells you when to use `{name}`."
            )
        molecule = routed[0]
        compounds = self._parents(molecule)
        return reason, (
            f"Start from the compound: {_listed(compounds, self._file)}; then load the molecule "
            f"`{molecule}` ({self._file(molecule)}), which tells you when to use `{name}`."
        )

    def _reachable_now(self, molecule: str, state: LoadingState) -> bool:
        """Whether `molecule` could be loaded now without a violation."""
        node = self.graph.get(molecule)
        if node is not None and node.standalone:
            return True
        return any(c in state.loaded for c in self.graph.parents_above(molecule))
