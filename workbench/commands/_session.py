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


def api_key(args: argparse.Namespace) -> str | None:
    """`--api-key`, or the text of `--api-key-file` (a file that must exist), stripped: read the
    same way by the CLI's prompt, `sweep` and `eval`."""
    from workbench.errors import UsageError

    if args.api_key_file is None:
        given: str | None = args.api_key
        return given
    if args.api_key is not None:
        raise UsageError("give --api-key or --api-key-file, not both")
    try:
        text = Path(args.api_key_file).expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(
            f"cannot read the API key file {args.api_key_file}: {exc}",
            "pass a readable text file that holds the key",
        ) from exc
    return text.strip() or None


def open_or_create(args: argparse.Namespace) -> Session:
    """The session named (`--session`, or `--branch`, `--show`, `--resume` of the latest), else
    the most recent one, else a new one: where `sweep` and `eval` record their runs."""
    from workbench.errors import UsageError
    from workbench.sessions.session import Session
    from workbench.sessions.store.location import find_storage

    root = project_root()
    if args.session or args.branch or args.show or args.resume:
        return Session.open(root, args.session, args.branch)
    if find_storage(root) is not None:
        try:
            return Session.open(root)
        except UsageError:  # storage, but no session of this checkout yet
            pass
    return Session.create(root)


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
