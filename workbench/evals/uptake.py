"""Uptake: what a run did with its skills, read from the entries of its branch.

The enforcer records every load on the tool result that carried it (`skill_load` details): which
skill, its layer, and the verdict (ok, violation, cycle, repeat). Those records are the source.
Where the enforcer was off (`enforcer_off`, `flat_catalog`) it checks nothing and records nothing,
so the run's reads are matched to the skill files of its worktree by the enforcer's own detection
(`detect.loads`): a read of a SKILL.md is a load whatever the mode.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from workbench.enforcer.detect import loads
from workbench.enforcer.state import records_of
from workbench.messages import Message
from workbench.skills.graph import SkillGraph


@dataclass
class Uptake:
    """Whether the skill under test was loaded, at which turn (1: the first model reply), which
    layers were loaded, and what the enforcer saw out of order."""

    loaded: bool = False
    turn: int | None = None
    skills: list[str] = field(default_factory=list)
    layers: list[str] = field(default_factory=list)
    violations: int = 0
    cycles: int = 0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Uptake:
        return cls(**data)


def uptake_of(messages: list[Message], skill: str, graph: SkillGraph, cwd: Path) -> Uptake:
    """The uptake of `skill` in a run's messages; `graph` and `cwd` are the run's worktree's."""
    found = Uptake()
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    turn = 0

    def note(name: str, layer: str | None) -> None:
        if name not in found.skills:
            found.skills.append(name)
        if layer and layer not in found.layers:
            found.layers.append(layer)
        if name == skill and not found.loaded:
            found.loaded, found.turn = True, turn

    for message in messages:
        if message.role == "assistant":
            turn += 1
            for call in message.tool_calls:
                calls[call.id] = (call.name, call.arguments)
            continue
        if message.role != "tool_result":
            continue
        every = records_of(message)  # a refused load (block mode) is an error, and recorded
        found.violations += sum(r.verdict == "violation" for r in every)
        found.cycles += sum(r.verdict == "cycle" for r in every)
        if message.is_error:
            continue
        records = [r for r in every if not r.blocked]
        for record in records:
            note(record.skill, record.layer)
        if records or message.tool_call_id not in calls:
            continue
        name, args = calls[message.tool_call_id]
        for load in loads(graph, name, args, cwd):
            note(load.skill.name, load.skill.layer)
    return found
