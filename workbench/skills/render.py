"""Draw a skill graph as a text tree, JSON, Mermaid or Graphviz DOT.

Every format shows every skill and every declared delegation, including delegations to names no
skill has (drawn as missing), so a drawing never hides what `lint` would complain about.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from workbench.skills.graph import SkillGraph
from workbench.skills.model import LAYER_RANK, LAYERS, Skill
from workbench.text import count_of


def _sorted(graph: SkillGraph) -> list[Skill]:
    """Compounds, molecules, atoms, then unlayered skills; by name within each."""
    return sorted(graph.skills.values(), key=lambda s: (LAYER_RANK[s.layer], s.name))


def _edges(graph: SkillGraph) -> Iterator[tuple[str, str]]:
    for skill in _sorted(graph):
        for target in graph.children(skill.name):
            yield skill.name, target


def _missing(graph: SkillGraph) -> list[str]:
    return sorted({target for _, target in _edges(graph) if target not in graph})


def tree(graph: SkillGraph) -> str:
    """Compounds with their molecules and atoms; skills no compound reaches; unlayered ones."""
    reached: set[str] = set()
    compounds: list[str] = []
    for compound in graph.layered("compound"):
        compounds.extend(_subtree(graph, compound.name, reached))
    unreached = [s for layer in ("molecule", "atom") for s in graph.layered(layer)]
    # Skills nothing delegates to come first, so that each subtree is drawn from its top.
    unreached.sort(key=lambda s: bool(graph.delegators(s.name)))
    others: list[str] = []
    for skill in unreached:
        if skill.name not in reached:
            others.extend(_subtree(graph, skill.name, reached))
    sections = [
        compounds,
        ["not reached from a compound:", *others] if others else [],
        ["unlayered:", *(f"  {s.name}" for s in graph.unlayered())] if graph.unlayered() else [],
        [_summary(graph)],
    ]
    return "\n\n".join("\n".join(lines) for lines in sections if lines) + "\n"


def _subtree(graph: SkillGraph, root: str, reached: set[str]) -> list[str]:
    """The lines of `root` and everything below it, marking skills drawn in `reached`.
    Iterative, so that a long chain of delegations cannot exhaust the stack."""
    lines: list[str] = []
    expanded: set[str] = set()  # a skill shared inside one subtree is drawn in full once
    stack: list[tuple[str, str, str, tuple[str, ...]]] = [(root, "", "", ())]
    while stack:
        name, prefix, branch, path = stack.pop()
        skill = graph.get(name)
        children = graph.children(name)
        marks = ["standalone"] if skill is not None and skill.standalone else []
        if skill is None:
            marks.append("missing")
        elif name in path:
            marks.append("cycle")
        elif name in expanded and children:
            marks.append("see above")
        lines.append(prefix + branch + name + "".join(f" ({m})" for m in marks))
        reached.add(name)
        if skill is None or name in path or name in expanded:
            continue
        expanded.add(name)
        inner = prefix + {"": "", "├── ": "│   ", "└── ": "    "}[branch]
        for i in reversed(range(len(children))):
            last = i == len(children) - 1
            stack.append((children[i], inner, "└── " if last else "├── ", (*path, name)))
    return lines


def _summary(graph: SkillGraph) -> str:
    counts = [count_of(len(graph.layered(layer)), layer) for layer in LAYERS]
    return ", ".join([*counts, f"{len(graph.unlayered())} unlayered"])


def as_json(graph: SkillGraph) -> str:
    """`{"skills": [{name, layer, standalone, delegates_to, path, description}], "edges": [...]}`"""
    skills = [
        {
            "name": s.name,
            "layer": s.layer,
            "standalone": s.standalone,
            "delegates_to": list(graph.children(s.name)),
            "path": str(s.path),
            "description": s.description,
        }
        for s in _sorted(graph)
    ]
    edges = [list(edge) for edge in _edges(graph)]
    import json  # only for this format: lint never loads it

    return json.dumps({"skills": skills, "edges": edges}, indent=2, ensure_ascii=False) + "\n"


_COLOURS = {"compound": "#f6d6a8", "molecule": "#bfdcf5", "atom": "#cdeccd", "": "#eeeeee"}


def mermaid(graph: SkillGraph) -> str:
    """A Mermaid flowchart: one class per layer, standalone atoms as rounded stadiums."""
    ids: dict[str, str] = {}
    lines = ["flowchart TD"]
    for skill in _sorted(graph):
        ids[skill.name] = node = f"n{len(ids)}"
        label = _mermaid_label(skill.name)
        shape = f'(["{label}"])' if skill.standalone else f'["{label}"]'
        lines.append(f"  {node}{shape}:::{skill.layer or 'unlayered'}")
    for name in _missing(graph):
        ids[name] = node = f"n{len(ids)}"
        lines.append(f'  {node}["{_mermaid_label(name)} (missing)"]:::missing')
    lines.extend(f"  {ids[a]} --> {ids[b]}" for a, b in _edges(graph))
    for layer, colour in _COLOURS.items():
        lines.append(f"  classDef {layer or 'unlayered'} fill:{colour},stroke:#555")
    lines.append("  classDef missing fill:#fff,stroke:#c00,stroke-dasharray:4 3")
    return "\n".join(lines) + "\n"


def _mermaid_label(name: str) -> str:
    return name.replace("&", "#amp;").replace('"', "#quot;")


def dot(graph: SkillGraph) -> str:
    """A Graphviz digraph, one rank per layer, colours by layer, missing targets dashed red."""
    lines = [
        "digraph skills {",
        "  rankdir=TB;",
        '  node [shape=box, style="filled", fontname="Helvetica"];',
    ]
    for skill in _sorted(graph):
        style = ', style="rounded,filled"' if skill.standalone else ""
        colour = _COLOURS[skill.layer or ""]
        lines.append(f'  {_quote(skill.name)} [fillcolor="{colour}"{style}];')
    for name in _missing(graph):
        label = _quote(f"{name} (missing)")
        lines.append(f'  {_quote(name)} [style="dashed", color="#cc0000", label={label}];')
    for layer in LAYERS:
        names = " ".join(f"{_quote(s.name)};" for s in graph.layered(layer))
        if names:
            lines.append(f"  {{ rank=same; {names} }}")
    lines.extend(f"  {_quote(a)} -> {_quote(b)};" for a, b in _edges(graph))
    lines.append("}")
    return "\n".join(lines) + "\n"


def _quote(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


FORMATS: dict[str, Callable[[SkillGraph], str]] = {
    "tree": tree,
    "json": as_json,
    "mermaid": mermaid,
    "dot": dot,
}
