"""`workbench fork NAME`: a new conversation branch (and worktree) at the current or an entry."""

from __future__ import annotations

import argparse
import asyncio

from workbench.agent.models.choice import warm_soon
from workbench.commands._session import add_session_option, open_session


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="the new branch's name")
    parser.add_argument(
        "--at", metavar="ENTRY", help="entry id, prefix or label (default: the current entry)"
    )
    add_session_option(parser)


def run(args: argparse.Namespace) -> int:
    warm_soon()  # a run on the new branch is likely next
    with open_session(args) as session:
        result = asyncio.run(session.fork(args.name, args.at))
    print(result.render_text())
    return 0
