"""Skill folders for tests: written to disk as real SKILL.md files, read back by the real parser.

`write_tree` writes each skill as `<root>/<name>/SKILL.md` (frontmatter in the spec-clean form,
our fields under `metadata`) and returns the graph the project's discovery and parser build from
those files. Only `graph_in_memory` (10,000-skill topologies in unit tests) builds the Skill
records directly, from the same frontmatter, without writing them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from workbench.skills.discover import SkillRoot, SkillSet, load_skills
from workbench.skills.graph import SkillGraph
from workbench.skills.model import Skill
from workbench.skills.parse import parse_skill

BODIES = {
    "atom": (
        "## Purpose\n{purpose}\n\n## Inputs\nA URL or a file path, given by the molecule.\n\n"
        "## Steps\n1. Check the input.\n2. Do the one thing.\n\n## Outputs\nPlain text, "
        "returned to the molecule.\n\n## Error handling\nStop and report the input that failed."
    ),
    "molecule": (
        "## Purpose\n{purpose}\n\n## Atoms\nLoad these atoms on demand with the read tool.\n\n"
        "## Orchestration\n1. Load the first atom and run it.\n2. Then the next.\n\n"
        "## Outputs\nA short report for the compound.\n\n## Failure handling\nReport which atom "
        "failed."
    ),
    "compound": (
        "## Purpose\n{purpose}\n\n## Human decision points\nAsk the user one question at a "
        "time, with a recommended option.\n\n## Molecules\nLoad molecules on demand.\n\n"
        "## Orchestration strategy\nRun the molecules in order.\n\n## Success criteria\nThe "
        "user accepts the result.\n\n## Known limitations\nNeeds network access."
    ),
    None: "# {name}\n\n{purpose}\n\n## When to use\nWhen the task mentions {name}.",
}


@dataclass
class Spec:
    """One skill to write: its layer, what it delegates to, and its frontmatter extras."""

    layer: str | None = None
    delegates: tuple[str, ...] = ()
    standalone: bool = False
    description: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    body: str | None = None


EXAMPLE: dict[str, Spec] = {
    "publish-report": Spec(
        "compound", ("gather-sources", "write-draft"), extra={"metadata": {"tags": "writing"}}
    ),
    "triage-bug": Spec("compound", ("reproduce-bug", "write-draft")),
    "gather-sources": Spec("molecule", ("fetch-url", "extract-text")),
    "write-draft": Spec("molecule", ("outline", "format-citations")),
    "reproduce-bug": Spec("molecule", ("run-tests", "extract-text")),
    "lonely-molecule": Spec("molecule", ("outline",)),
    "fetch-url": Spec("atom", standalone=True),
    "extract-text": Spec("atom"),
    "outline": Spec("atom"),
    "format-citations": Spec("atom"),
    "run-tests": Spec("atom", standalone=True, extra={"allowed-tools": "Bash(pytest:*) Grep"}),
    "pdf-tools": Spec(None, extra={"tags": ["pdf", "documents"]}),
}
"""Two compounds sharing a molecule, an atom under two molecules, standalone and ordinary atoms,
a molecule no compound reaches, and one unlayered skill."""


def frontmatter(name: str, spec: Spec) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": name,
        "description": spec.description or f"Does {name.replace('-', ' ')}. Use it for tests.",
    }
    metadata: dict[str, Any] = {}
    if spec.layer:
        metadata["layer"] = spec.layer
    if spec.delegates:
        metadata["delegates-to"] = " ".join(spec.delegates)
    if spec.standalone:
        metadata["standalone"] = "true"
    for key, value in spec.extra.items():
        if key == "metadata":
            metadata.update(value)
        else:
            data[key] = value
    if metadata:
        data["metadata"] = metadata
    return data


def skill_from(path: Path, data: dict[str, Any], body: str) -> Skill:
    """The Skill the parser reads from this frontmatter and body (for `graph_in_memory`)."""
    metadata = data.get("metadata") or {}
    delegates = metadata.get("delegates-to", "")
    return Skill(
        name=data["name"],
        path=path,
        description=data["description"],
        layer=metadata.get("layer"),
        delegates_to=tuple(delegates.split()) if isinstance(delegates, str) else tuple(delegates),
        standalone=str(metadata.get("standalone", "")).lower() == "true",
        frontmatter=data,
        body=body,
    )


def write_skill(root: Path, name: str, spec: Spec) -> Skill:
    """Write one skill folder and return the skill the parser reads from it."""
    data = frontmatter(name, spec)
    body = spec.body or BODIES[spec.layer].format(
        name=name, purpose=f"Handle {name.replace('-', ' ')} step by step."
    )
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    text = "---\n" + yaml.safe_dump(data, sort_keys=False) + "---\n\n" + body + "\n"
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    skill, _ = parse_skill(folder / "SKILL.md")
    assert skill is not None
    return skill


def load_set(root: Path) -> SkillSet:
    """Discover and parse the skills under `root`, as the project does."""
    return load_skills([SkillRoot(root, "explicit")], use_cache=False)


def load_tree(root: Path) -> SkillGraph:
    return load_set(root).graph


def write_tree(root: Path, specs: dict[str, Spec] | None = None) -> SkillGraph:
    """Write `specs` (default: EXAMPLE) under `root` and return their graph."""
    root.mkdir(parents=True, exist_ok=True)
    for name, spec in (EXAMPLE if specs is None else specs).items():
        write_skill(root, name, spec)
    return load_tree(root)


def layered_specs(compounds: int, molecules_each: int = 3, atoms_each: int = 3) -> dict[str, Spec]:
    """A big regular graph: each compound has its own molecules, each molecule its own atoms."""
    specs: dict[str, Spec] = {}
    for c in range(compounds):
        molecule_names = [f"m{c}-{m}" for m in range(molecules_each)]
        specs[f"c{c}"] = Spec("compound", tuple(molecule_names))
        for molecule in molecule_names:
            atoms = [f"{molecule}-a{a}" for a in range(atoms_each)]
            specs[molecule] = Spec("molecule", tuple(atoms))
            for a, atom in enumerate(atoms):
                specs[atom] = Spec("atom", standalone=a == 0)
    return specs


def graph_in_memory(root: Path, specs: dict[str, Spec]) -> SkillGraph:
    """The graph of `specs` as if written under `root`, without touching the disk (for 10,000
    skills in a unit test)."""
    skills = []
    for name, spec in specs.items():
        data = frontmatter(name, spec)
        body = BODIES[spec.layer].format(name=name, purpose=f"Handle {name}.")
        skills.append(skill_from(root / name / "SKILL.md", data, body))
    return SkillGraph(skills)
