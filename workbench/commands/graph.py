"""`workbench graph [PATH ...]`: print the skill graph as a tree, JSON, Mermaid or DOT."""

from __future__ import annotations

import argparse
import gc
import sys

from workbench.commands._skill_paths import add_skill_path_arguments
from workbench.skills.discover import load_paths, shown
from workbench.skills.render import FORMATS
from workbench.text import count_of


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
    if nothing_found := skills.nothing_found():
        print(f"workbench: {nothing_found}", file=sys.stderr)
    elif skills.diagnostics:
        print(
            f"workbench: {count_of(len(skills.diagnostics), 'problem')} found while reading the "
            "skills; "
            "run `workbench lint` for details",
            file=sys.stderr,
        )
    return 0
