"""The skills section stays byte-identical to what earlier releases rendered (prompt caches hit
across an upgrade), and a big graph costs only what the section shows."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from support.skill_trees import EXAMPLE, Spec, graph_in_memory, layered_specs

from workbench.enforcer.topology import Hints, render
from workbench.skills.model import Skill

ROOT = Path("/project/skills")
SHAPES = {
    "example": lambda: EXAMPLE,
    "layered-50": lambda: layered_specs(50),
    "mixed-52": lambda: {
        **layered_specs(12),
        **{f"tool-{n}": Spec(description="y " * 10) for n in range(40)},
    },
    "layered-5000": lambda: layered_specs(385),
    "unlayered-5000": lambda: {
        f"skill-{n:05d}": Spec(description="Word " * 60) for n in range(5000)
    },
    "mixed-5000": lambda: {
        **layered_specs(300),
        **{f"tool-{n}": Spec(description="x " * 50) for n in range(1100)},
    },
}
RENDERED = {
    "example": "4a522aaa764218fd249d47c3fbbd2e44",
    "layered-50": "f005096489927148c4db16a9f462a517",
    "mixed-52": "55b4b017cfce78d1e0263f802eb338b5",
    "layered-5000": "01884c091ecb364e4f0062ec0429d9e0",
    "unlayered-5000": "f04969a6b50200a66ea0c2b7dc5e0f05",
    "mixed-5000": "af35f7bdbdabdaf9ddb57d7cd87df8c9",
}
"""sha256 (first 32 hex digits) of the six renderings below, as rendered before the section was
built lazily: a change here changes every user's system prompt, and the prompt cache misses."""


def where(skill: Skill) -> str:
    return str(skill.path.relative_to(ROOT.parent))


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_section_is_byte_identical_to_the_earlier_rendering(shape):
    graph = graph_in_memory(ROOT, SHAPES[shape]())
    digest = hashlib.sha256()
    for hints in (Hints(), Hints(activate=True, query=False)):
        for budget in (600, 2000, 8000):
            digest.update(render(graph, where, budget_tokens=budget, hints=hints).encode() + b"\0")
    assert digest.hexdigest()[:32] == RENDERED[shape]


@pytest.mark.parametrize("shape", ["layered-5000", "unlayered-5000", "mixed-5000"])
def test_five_thousand_skills_are_not_all_named_to_keep_a_few(shape):
    """Entries are made only until the section is full: about 6.4 KB is kept, so a few hundred
    skills are looked at, not every one (1.2 MB of text, a third of a second, before)."""
    graph = graph_in_memory(ROOT, SHAPES[shape]())
    named: list[str] = []

    def counting(skill: Skill) -> str:
        named.append(skill.name)
        return where(skill)

    text = render(graph, counting)
    assert len(text.encode()) < 8000
    assert len(named) < 600, len(named)
