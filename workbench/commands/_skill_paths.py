"""What the skill subcommands share: the PATH arguments and `--no-cache`, and the one text of a
finding (lint prints every one; graph the settings paths that do not exist)."""

from __future__ import annotations

import argparse
from pathlib import Path

from workbench.skills.discover import PATH_KINDS, shown
from workbench.skills.model import Diagnostic


def add_skill_path_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help=f"{PATH_KINDS} (default: the project's skills)",
    )
    parser.add_argument("--no-cache", action="store_true", help="parse every file again")


def finding_text(d: Diagnostic, cwd: str) -> str:
    """`path:line: severity rule-id message`, and its hint indented below."""
    line = f"{shown(d.path, cwd)}:{d.line}: {d.severity} {d.rule} {d.message}\n"
    return line + (f"    {d.hint}\n" if d.hint else "")
