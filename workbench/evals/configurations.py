"""The configurations an eval compares, each one a way of offering the skill to the model.

`with_skill` and `without_skill` by default; `--against OLD` adds `previous`, `--enforcer
off,warn,block` adds one configuration per mode, `--catalog flat` adds `flat_catalog`, `--ablate`
adds `without_<name>` for each molecule and atom below a compound. The flags add; they never
multiply. Each configuration becomes a sweep variant: the settings its run gets, and what its
worktree holds instead of the project's copy of the skill.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.enforcer.settings import MODES
from workbench.errors import UsageError
from workbench.skills.graph import SkillGraph
from workbench.skills.model import Skill

WITH, WITHOUT, PREVIOUS, FLAT = "with_skill", "without_skill", "previous", "flat_catalog"


@dataclass(frozen=True)
class Configuration:
    """One way to offer the skill: settings for the run, skills left out of its catalog and its
    worktree, and the folder whose copy stands in for the skill (None: the skill as it is)."""

    name: str
    settings: dict[str, Any] = field(default_factory=dict)
    removed: tuple[str, ...] = ()
    source: Path | None = None


def _below(graph: SkillGraph, compound: Skill) -> list[str]:
    """The molecules and atoms a compound reaches, in declared order."""
    found: list[str] = []
    todo = list(graph.children(compound.name))
    while todo:
        name = todo.pop(0)
        skill = graph.get(name)
        if skill is None or name in found or skill.layer not in ("molecule", "atom"):
            continue
        found.append(name)
        todo += graph.children(name)
    return found


def configurations(
    skill: Skill,
    graph: SkillGraph,
    *,
    against: Path | None = None,
    enforcer: list[str] | None = None,
    catalog: str | None = None,
    ablate: bool = False,
) -> list[Configuration]:
    """The configurations asked for, in the order they are reported."""
    chosen = [Configuration(WITH), Configuration(WITHOUT, removed=(skill.name,))]
    if against is not None:
        if not (against / "SKILL.md").is_file():
            raise UsageError(
                f"--against {against}: no SKILL.md there", "name the old skill's folder"
            )
        chosen.append(Configuration(PREVIOUS, source=against))
    for mode in enforcer or []:
        if mode not in MODES:
            raise UsageError(f"--enforcer {mode}: not a mode", f"modes: {', '.join(MODES)}")
        chosen.append(Configuration(f"enforcer_{mode}", {"enforcer.mode": mode}))
    if catalog is not None:
        if catalog != "flat":
            raise UsageError(f"--catalog {catalog}: only `flat` is offered", None)
        chosen.append(Configuration(FLAT, {"skills.catalog": "flat", "enforcer.mode": "off"}))
    if ablate:
        if skill.layer != "compound":
            raise UsageError(
                f"--ablate: {skill.name} is not a compound",
                "ablation removes a compound's molecules and atoms in turn",
            )
        chosen += [
            Configuration(f"without_{name}", removed=(name,)) for name in _below(graph, skill)
        ]
    return chosen
