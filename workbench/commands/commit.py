"""`workbench commit -m MESSAGE`: commit a branch's file changes and record a checkpoint."""

from __future__ import annotations

import argparse
import asyncio

from workbench.commands._session import add_session_option, open_session


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-m", "--message", help="the commit message (needed without a model)")
    parser.add_argument("--branch", help="default: the session's current branch")
    add_session_option(parser)


def run(args: argparse.Namespace) -> int:
    with open_session(args) as session:
        result = asyncio.run(session.commit(args.message, branch=args.branch))
    print(result.render_text())
    return 0
