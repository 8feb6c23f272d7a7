"""`workbench navigate ENTRY`: move the session's position to any entry or branch head."""

from __future__ import annotations

import argparse
import asyncio

from workbench.commands._session import add_session_option, open_session


def configure(parser: argparse.ArgumentParser) -> None:
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("entry", nargs="?", help="entry id, prefix or label")
    target.add_argument("--branch", help="go to the head of this branch instead")
    add_session_option(parser)


def run(args: argparse.Namespace) -> int:
    with open_session(args) as session:
        if args.branch:
            asyncio.run(session.switch_branch(args.branch))
            print(f"on {args.branch} at {(session.store.position_entry() or 'the start')[:10]}")
        else:
            print(asyncio.run(session.navigate(args.entry)).render_text())
    return 0
