"""Drawing a skill graph: tree, JSON, Mermaid and DOT show every skill and every delegation."""

from __future__ import annotations

import json
from pathlib import Path

from workbench.skills.graph import SkillGraph
from workbench.skills.model import Skill
from workbench.skills.render import as_json, dot, mermaid, tree


def make(name: str, layer=None, to=(), standalone=False, description="") -> Skill:
    return Skill(
        name=name,
        path=Path(f"/s/{name}/SKILL.md"),
        layer=layer,
        delegates_to=tuple(to),
        standalone=standalone,
        description=description or f"The {name} skill.",
    )


GRAPH = SkillGraph(
    [
        make("compound-ship", "compound", ["molecule-plan", "molecule-land"]),
        make("molecule-plan", "molecule", ["atom-read", "atom-gone"]),
        make("molecule-land", "molecule", ["atom-commit", "atom-read"]),
        make("molecule-orphan", "molecule", ["atom-spare"]),
        make("atom-read", "atom", standalone=True),
        make("atom-commit", "atom", standalone=True),
        make("atom-spare", "atom"),
        make("atom-alone", "atom", standalone=True),
        make("pdf", description='Read "PDF" files'),
    ]
)


def test_tree() -> None:
    assert tree(GRAPH) == (
        "compound-ship\n"
        "├── molecule-plan\n"
        "│   ├── atom-read (standalone)\n"
        "│   └── atom-gone (missing)\n"
        "└── molecule-land\n"
        "    ├── atom-commit (standalone)\n"
        "    └── atom-read (standalone)\n"
        "\n"
        "not reached from a compound:\n"
        "molecule-orphan\n"
        "└── atom-spare\n"
        "atom-alone (standalone)\n"
        "\n"
        "unlayered:\n"
        "  pdf\n"
        "\n"
        "1 compound, 3 molecules, 4 atoms, 1 unlayered\n"
    )


def test_tree_stops_at_cycles() -> None:
    graph = SkillGraph(
        [
            make("compound-a", "compound", ["molecule-b"]),
            make("molecule-b", "molecule", ["molecule-c"]),
            make("molecule-c", "molecule", ["molecule-b"]),
        ]
    )
    assert tree(graph).splitlines()[:4] == [
        "compound-a",
        "└── molecule-b",
        "    └── molecule-c",
        "        └── molecule-b (cycle)",
    ]


def test_tree_of_a_pure_cycle_outside_compounds_is_drawn() -> None:
    graph = SkillGraph(
        [
            make("molecule-b", "molecule", ["molecule-c"]),
            make("molecule-c", "molecule", ["molecule-b"]),
        ]
    )
    assert "molecule-b\n└── molecule-c\n    └── molecule-b (cycle)\n" in tree(graph)


def test_json() -> None:
    data = json.loads(as_json(GRAPH))
    assert [s["name"] for s in data["skills"]] == [
        "compound-ship",
        "molecule-land",
        "molecule-orphan",
        "molecule-plan",
        "atom-alone",
        "atom-commit",
        "atom-read",
        "atom-spare",
        "pdf",
    ]
    assert data["skills"][0] == {
        "name": "compound-ship",
        "layer": "compound",
        "standalone": False,
        "delegates_to": ["molecule-plan", "molecule-land"],
        "path": "/s/compound-ship/SKILL.md",
        "description": "The compound-ship skill.",
    }
    assert data["skills"][-1]["layer"] is None
    assert ["molecule-plan", "atom-gone"] in data["edges"]
    assert len(data["edges"]) == 7


def test_mermaid() -> None:
    graph = SkillGraph(
        [
            make("molecule-m", "molecule", ["atom-a", "atom-gone"]),
            make("atom-a", "atom", standalone=True),
            make('say "hi"'),
        ]
    )
    assert mermaid(graph).splitlines()[:7] == [
        "flowchart TD",
        '  n0["molecule-m"]:::molecule',
        '  n1(["atom-a"]):::atom',
        '  n2["say #quot;hi#quot;"]:::unlayered',
        '  n3["atom-gone (missing)"]:::missing',
        "  n0 --> n1",
        "  n0 --> n3",
    ]
    assert "classDef missing" in mermaid(graph)


def test_dot() -> None:
    graph = SkillGraph(
        [make('we"ird', "molecule", ["atom-x"]), make("atom-x", "atom", standalone=True)]
    )
    text = dot(graph)
    assert text.startswith("digraph skills {\n") and text.endswith("}\n")
    assert '  "we\\"ird" -> "atom-x";' in text
    assert '  "atom-x" [fillcolor="#cdeccd", style="rounded,filled"];' in text
    assert '{ rank=same; "atom-x"; }' in text


def test_tree_draws_a_skill_shared_within_one_subtree_once() -> None:
    """Invalid same-layer chains could otherwise grow the tree exponentially."""
    graph = SkillGraph(
        [
            make("compound-a", "compound", ["molecule-b", "molecule-c"]),
            make("molecule-b", "molecule", ["molecule-d"]),
            make("molecule-c", "molecule", ["molecule-d"]),
            make("molecule-d", "molecule", ["atom-e"]),
            make("atom-e", "atom", standalone=True),
        ]
    )
    assert tree(graph).splitlines()[:7] == [
        "compound-a",
        "├── molecule-b",
        "│   └── molecule-d",
        "│       └── atom-e (standalone)",
        "└── molecule-c",
        "    └── molecule-d (see above)",
        "",
    ]
