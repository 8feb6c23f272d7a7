"""The short line appended to a skill read's result: where the model may go next.

A compound names the molecules that come next, a molecule the atoms it may load, a standalone skill
says it may be used on its own. Files are named so the model can read them without a search.
"""

from __future__ import annotations

from workbench.enforcer.verdict import Allowed, Where, allow_all, delegates_below
from workbench.skills.graph import SkillGraph
from workbench.skills.model import Skill

MAX_LISTED = 12
PREFIX = "[skill graph] "


def _named(graph: SkillGraph, names: tuple[str, ...], where: Where) -> str:
    shown = []
    for name in names[:MAX_LISTED]:
        skill = graph.get(name)
        shown.append(f"`{name}` ({where(skill)})" if skill else f"`{name}`")
    more = len(names) - MAX_LISTED
    return "; ".join(shown) + (f"; and {more} more" if more > 0 else "")


def guidance(
    graph: SkillGraph, skill: Skill, via: str | None, where: Where, allowed: Allowed = allow_all
) -> str:
    """One line for the model after `skill` was loaded (`via`: the skill above that allowed it);
    empty for an unlayered skill. Skills the allowlist refuses are not offered."""
    name = skill.name
    below = delegates_below(graph, skill, allowed)
    refused = " this project allows" if not below and delegates_below(graph, skill) else ""
    if skill.layer == "compound":
        if not below:
            return f"{PREFIX}Loaded compound `{name}`; it delegates to no molecule{refused}."
        return (
            f"{PREFIX}Loaded compound `{name}`. Load each molecule only when you reach its step: "
            + _named(graph, below, where)
            + "."
        )
    if skill.layer == "molecule":
        if not below:
            return f"{PREFIX}Loaded molecule `{name}`; it delegates to no atom{refused}."
        return (
            f"{PREFIX}Loaded molecule `{name}`. Follow its steps; it may load these atoms when a "
            "step calls for them: " + _named(graph, below, where) + "."
        )
    if skill.layer == "atom":
        if via is not None:
            return f"{PREFIX}Loaded atom `{name}` for `{via}`; when it is done, go back to `{via}`."
        if skill.standalone:
            return f"{PREFIX}`{name}` is a standalone atom: you may use it on its own."
        return f"{PREFIX}Loaded atom `{name}`."
    return ""
