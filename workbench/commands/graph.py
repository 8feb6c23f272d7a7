"""`workbench graph [PATH ...]`: print the skill graph as a tree, JSON, Mermaid or DOT."""

from __future__ import annotations

import argparse
import gc
import os
import sys

from workbench.commands._skill_paths import add_skill_path_arguments, finding_text
from workbench.skills.discover import load_paths, shown
from workbench.skills.render import FORMATS
from workbench.text import count_of

MISSING = "skill-path-missing"
"""The finding graph names itself, as lint does: a path from settings is not on disk (the
graph shown is then not the one the user meant)."""


def configure(parser: argparse.ArgumentParser) -> None:
    add_skill_path_arguments(parser)
    parser.add_argument("--format", choices=tuple(FORMATS), default="tree")


def run(args: argparse.Namespace) -> int:
    gc.disable()  # a short run that frees nothing cyclic: collecting would only cost time
    skills = load_paths(args.paths, use_cache=not args.no_cache)
    sys.stdout.write(FORMATS[args.format](skills.graph))
    if args.format == "tree" and skills.found_in:
        sys.stdout.write("\nFound in:\n")
        for root, names in skills.by_root():
            sys.stdout.write(f"  {shown(root.path)} ({root.origin}): {', '.join(names)}\n")
    missing = [d for d in skills.diagnostics if d.rule == MISSING]
    cwd = os.getcwd()  # noqa: PTH109 - as lint shows paths
    sys.stderr.write("".join(finding_text(d, cwd) for d in missing))
    others = len(skills.diagnostics) - len(missing)
    if nothing_found := skills.nothing_found():
        print(f"workbench: {nothing_found}", file=sys.stderr)
    elif others:
        print(
            f"workbench: {count_of(others, 'other problem' if missing else 'problem')} found "
            "while reading the "
            "skills; "
            "run `workbench lint` for details",
            file=sys.stderr,
        )
    return 0
