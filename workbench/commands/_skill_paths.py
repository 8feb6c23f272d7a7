"""What the skill subcommands share: the PATH arguments and `--no-cache`."""

from __future__ import annotations

import argparse
from pathlib import Path

from workbench.skills.discover import PATH_KINDS


def add_skill_path_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help=f"{PATH_KINDS} (default: the project's skills)",
    )
    parser.add_argument("--no-cache", action="store_true", help="parse every file again")
