"""`workbench commit [-m MESSAGE]`: commit a branch's file changes and record a checkpoint.

Without `-m` the session's model drafts the message (purpose / changes / result) from the
conversation since the last checkpoint, as `/commit` does in the app: the session is opened as a
whole (its model, its lock), on the branch asked for.
"""

from __future__ import annotations

import argparse
import asyncio

from workbench.commands._session import (
    add_model_option,
    add_session_option,
    on_workbench,
    open_session,
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-m", "--message", help="the commit message; without it the model drafts")
    parser.add_argument("--branch", help="default: the session's current branch")
    add_model_option(parser)
    add_session_option(parser)


def run(args: argparse.Namespace) -> int:
    if args.message is None:
        result = asyncio.run(on_workbench(args, lambda wb: wb.commit(None), args.branch))
    else:
        with open_session(args) as session:
            result = asyncio.run(session.commit(args.message, branch=args.branch))
    print(result.render_text())
    return 0
