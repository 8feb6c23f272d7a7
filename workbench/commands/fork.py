"""`workbench fork NAME`: a new conversation branch (and worktree) at the current or an entry."""

from __future__ import annotations

import argparse
import sys

from workbench.commands._session import add_session_option, open_session


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="the new branch's name")
    parser.add_argument(
        "--at", metavar="ENTRY", help="entry id, prefix or label (default: the current entry)"
    )
    add_session_option(parser)


def run(args: argparse.Namespace) -> int:
    with open_session(args) as session:
        result = session.fork_now(args.name, args.at)
    print(result.render_text())
    sys.stdout.flush()
    # A run on the new branch is likely next. Only now: the warm interpreter's imports would
    # otherwise take the CPU the checkout needs.
    from workbench.agent.models.choice import warm_soon

    warm_soon()
    return 0
