"""`workbench compile [PATH ...] [--out DIR]`: write every skill's projections to disk.

Per skill, in `DIR/<name>/`: `skill.yaml` (its metadata and the estimated tokens of each level),
`graph.yaml` (its resolved delegation edges, both ways) and `chunks/summary.md`, `chunks/core.md`,
`chunks/full.md`. `DIR/index.yaml` lists every skill with its layer and summary. The default DIR is
the project's `.pi/compiled`. Folders of skills that no longer exist are removed; nothing else in
DIR is touched. The output is deterministic: compiling twice gives the same bytes.
"""

from __future__ import annotations

import argparse
import re
import shutil
from pathlib import Path
from typing import Any

import yaml

from workbench.commands._skill_paths import add_skill_path_arguments
from workbench.config import find_project_root
from workbench.enforcer.activation import required_tools
from workbench.errors import WorkbenchError
from workbench.skills.discover import load_paths, shown
from workbench.skills.graph import SkillGraph
from workbench.skills.model import Skill
from workbench.skills.projection import LEVELS, estimate_tokens, project, skill_tags
from workbench.text import count_of

MARKER = "skill.yaml"
INDEX = "index.yaml"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def configure(parser: argparse.ArgumentParser) -> None:
    add_skill_path_arguments(parser)
    parser.add_argument(
        "--out", type=Path, metavar="DIR", help="where to write (default: .pi/compiled)"
    )


def folder_names(names: list[str]) -> dict[str, str]:
    """A safe, unique folder name for each skill name (names come from other people's files),
    never the index file's name."""
    taken: set[str] = {INDEX}
    folders: dict[str, str] = {}
    for name in sorted(names):
        base = _UNSAFE.sub("-", name).strip("-.") or "skill"
        folder, n = base, 2
        while folder.lower() in taken:
            folder, n = f"{base}-{n}", n + 1
        taken.add(folder.lower())
        folders[name] = folder
    return folders


def _edge(graph: SkillGraph, name: str) -> dict[str, Any]:
    skill = graph.get(name)
    if skill is None:
        return {"name": name, "missing": True}
    return {"name": name, "layer": skill.layer, "path": str(skill.path)}


def _metadata(skill: Skill, chunks: dict[str, str]) -> dict[str, Any]:
    return {
        "name": skill.name,
        "description": skill.description,
        "layer": skill.layer,
        "standalone": skill.standalone,
        "delegates-to": list(skill.delegates_to),
        "tags": list(skill_tags(skill)),
        "allowed-tools": required_tools(skill),
        "source": str(skill.path),
        "estimated-tokens": {level: estimate_tokens(text) for level, text in chunks.items()},
    }


def _edges(graph: SkillGraph, skill: Skill) -> dict[str, Any]:
    return {
        "name": skill.name,
        "layer": skill.layer,
        "delegates-to": [_edge(graph, n) for n in skill.delegates_to],
        "delegated-by": [_edge(graph, n) for n in sorted(graph.delegators(skill.name))],
        "parents-above": sorted(graph.parents_above(skill.name)),
    }


def _dump(data: Any) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def compile_skills(graph: SkillGraph, out: Path) -> dict[str, int]:
    """Write the projections of every skill in `graph` under `out`; return the total estimated
    tokens per level."""
    out.mkdir(parents=True, exist_ok=True)
    folders = folder_names(list(graph.skills))
    totals: dict[str, int] = dict.fromkeys(LEVELS, 0)
    index = []
    for name in sorted(graph.skills):
        skill = graph.skills[name]
        chunks: dict[str, str] = {level: project(skill, level) for level in LEVELS}
        folder = out / folders[name]
        (folder / "chunks").mkdir(parents=True, exist_ok=True)
        for level, text in chunks.items():
            (folder / "chunks" / f"{level}.md").write_text(text.rstrip("\n") + "\n", "utf-8")
            totals[level] += estimate_tokens(text)
        (folder / MARKER).write_text(_dump(_metadata(skill, chunks)), "utf-8")
        (folder / "graph.yaml").write_text(_dump(_edges(graph, skill)), "utf-8")
        entry = {"name": name, "folder": folders[name], "layer": skill.layer}
        index.append({**entry, "summary": chunks["summary"]})
    (out / INDEX).write_text(_dump(index), "utf-8")
    current = {folder.lower() for folder in folders.values()}
    for stale in sorted(out.iterdir()):
        if stale.is_dir() and (stale / MARKER).is_file() and stale.name.lower() not in current:
            shutil.rmtree(stale)
    return totals


def run(args: argparse.Namespace) -> int:
    skills = load_paths(args.paths, use_cache=not args.no_cache)
    out = args.out or find_project_root(Path.cwd()) / ".pi" / "compiled"
    try:
        totals = compile_skills(skills.graph, out)
    except OSError as exc:
        raise WorkbenchError(
            f"cannot write the projections to {shown(out)}: {exc.strerror or exc}",
            "give --out a folder you can write to",
        ) from exc
    count = len(skills.graph)
    if not count:
        print(f"no skills found; wrote an empty index to {shown(out)}")
        return 0
    averages = ", ".join(f"{level} ~{totals[level] // count}" for level in LEVELS)
    print(
        f"compiled {count_of(count, 'skill')} to {shown(out)} "
        f"(estimated tokens per skill: {averages})"
    )
    return 0
