"""What the session subcommands share: the `--session` option and opening the session."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from workbench.config import find_project_root

if TYPE_CHECKING:
    from workbench.runtime import Workbench
    from workbench.sessions.session import Session

T = TypeVar("T")


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


def add_model_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", help="the model that writes it (default: settings)")


async def on_workbench(
    args: argparse.Namespace,
    action: Callable[[Workbench], Awaitable[T]],
    branch: str | None = None,
) -> T:
    """Open the session as a whole (its model, its lock, on `branch`), run `action`, close it:
    for the commands that ask the session's model to write something."""
    from workbench.runtime import Workbench, WorkbenchOptions

    options = WorkbenchOptions(
        cwd=Path.cwd(),
        model=args.model,
        session_id=args.session,
        continue_session=args.session is None,
        branch=branch,
    )
    workbench = await Workbench.open(options)
    try:
        return await action(workbench)
    finally:
        await workbench.close()
