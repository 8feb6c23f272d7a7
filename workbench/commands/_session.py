"""What the session subcommands share: the `--session` option and opening the session."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.config import find_project_root

if TYPE_CHECKING:
    from workbench.sessions.session import Session


def add_session_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--session",
        metavar="ID",
        help="the session (an id or a unique prefix); default: the most recent one",
    )


def add_format_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=("text", "json"), default="text")


def project_root() -> Path:
    return find_project_root(Path.cwd())


def open_session(args: argparse.Namespace, readonly: bool = False) -> Session:
    """Open the session named by `--session` (or the latest); notices go to stderr."""
    from workbench.sessions.session import Session

    session = Session.open(project_root(), args.session, readonly=readonly)
    for notice in session.notices:
        print(f"workbench: {notice}", file=sys.stderr)
    return session
