"""`workbench commit [-m MESSAGE]`: commit a branch's file changes and record a checkpoint.

Without `-m` the session's model drafts the message (purpose / changes / result) from the
conversation since the last checkpoint, as `/commit` does in the app: the session is opened as a
whole (its model, its lock), on the branch asked for.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from workbench.commands._session import add_session_option, open_session


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-m", "--message", help="the commit message; without it the model drafts")
    parser.add_argument("--branch", help="default: the session's current branch")
    parser.add_argument("--model", help="the model that drafts the message (default: settings)")
    add_session_option(parser)


def run(args: argparse.Namespace) -> int:
    if args.message is None:
        result = asyncio.run(_drafted(args))
    else:
        with open_session(args) as session:
            result = asyncio.run(session.commit(args.message, branch=args.branch))
    print(result.render_text())
    return 0


async def _drafted(args: argparse.Namespace) -> object:
    from workbench.runtime import Workbench, WorkbenchOptions

    options = WorkbenchOptions(
        cwd=Path.cwd(),
        model=args.model,
        session_id=args.session,
        continue_session=args.session is None,
        branch=args.branch,
    )
    workbench = await Workbench.open(options)
    try:
        return await workbench.commit(None)
    finally:
        await workbench.close()
