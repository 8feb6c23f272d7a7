"""The delegation graph of a skill set, indexed for O(1) questions.

Built once per skill set. The index answers the questions the enforcer asks on every skill load in
constant time: which skill is this file, which skills of the layer above delegate to this one, what
does it delegate to. The networkx DiGraph (for cycles, reachability and drawing) is built lazily,
so that loading a graph does not pay for the networkx import.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.skills.model import LAYER_ABOVE, Layer, Skill

if TYPE_CHECKING:
    import networkx


def _folder_key(skill_file: Path) -> str:
    return os.path.normcase(str(skill_file.parent.resolve()))


class SkillGraph:
    """Skills by name, with delegation edges in both directions."""

    def __init__(self, skills: Iterable[Skill]) -> None:
        self.skills: dict[str, Skill] = {}
        for skill in skills:
            self.skills.setdefault(skill.name, skill)
        self._children: dict[str, tuple[str, ...]] = {}
        self._delegators: dict[str, set[str]] = {}
        self._parents_above: dict[str, frozenset[str]] = {}
        for skill in self.skills.values():
            if skill.layer is None:
                continue
            self._children[skill.name] = skill.delegates_to
            for target in skill.delegates_to:
                self._delegators.setdefault(target, set()).add(skill.name)
        for name, delegators in self._delegators.items():
            delegate = self.skills.get(name)
            above = LAYER_ABOVE.get(delegate.layer) if delegate and delegate.layer else None
            self._parents_above[name] = frozenset(
                d for d in delegators if above and self.skills[d].layer == above
            )

    def __len__(self) -> int:
        return len(self.skills)

    def __contains__(self, name: object) -> bool:
        return name in self.skills

    def get(self, name: str) -> Skill | None:
        return self.skills.get(name)

    def layered(self, layer: Layer) -> list[Skill]:
        """Skills of one layer, sorted by name."""
        return sorted((s for s in self.skills.values() if s.layer == layer), key=lambda s: s.name)

    def unlayered(self) -> list[Skill]:
        """Ordinary skills without a layer, sorted by name."""
        return sorted((s for s in self.skills.values() if s.layer is None), key=lambda s: s.name)

    def children(self, name: str) -> tuple[str, ...]:
        """The names a layered skill delegates to, in declared order."""
        return self._children.get(name, ())

    def delegators(self, name: str) -> frozenset[str]:
        """Every layered skill that delegates to `name`, whatever its layer."""
        return frozenset(self._delegators.get(name, ()))

    def parents_above(self, name: str) -> frozenset[str]:
        """The skills of the layer directly above `name`'s that delegate to it. O(1)."""
        return self._parents_above.get(name, frozenset())

    def by_path(self, path: Path) -> Skill | None:
        """The skill whose SKILL.md is `path`: resolved through `..` and symlinks, with the file
        name's case ignored (`SKILL.MD`). O(1)."""
        if path.name.lower() != "skill.md":
            return None
        return self._by_folder.get(_folder_key(path))

    @cached_property
    def _by_folder(self) -> dict[str, Skill]:
        """Skills by resolved folder; built on first use, as resolving every path costs a
        filesystem call per path component and `lint` never asks."""
        return {_folder_key(skill.path): skill for skill in self.skills.values()}

    @cached_property
    def digraph(self) -> networkx.DiGraph[str]:
        """The delegation graph as a networkx DiGraph: nodes carry `layer` and `standalone`."""
        import networkx

        graph: networkx.DiGraph[str] = networkx.DiGraph()
        for skill in self.skills.values():
            graph.add_node(skill.name, layer=skill.layer, standalone=skill.standalone)
        for name, targets in self._children.items():
            graph.add_edges_from((name, target) for target in targets)
        return graph
