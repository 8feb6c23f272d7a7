"""`workbench navigate ENTRY`: move the session's position to any entry or branch head."""

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
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("entry", nargs="?", help="entry id, prefix or label")
    target.add_argument("--branch", help="go to the head of this branch instead")
    parser.add_argument(
        "--summarize",
        action="store_true",
        help="the session's model records a goal-first summary of the path left behind",
    )
    parser.add_argument(
        "--restore-files",
        action="store_true",
        help="restore the files to what they were at that entry too (what the agent's tools "
        "changed since, bash included); refused when files changed outside the agent",
    )
    add_model_option(parser)
    add_session_option(parser)


def run(args: argparse.Namespace) -> int:
    if args.branch:
        with open_session(args) as session:
            asyncio.run(session.switch_branch(args.branch))
            print(f"on {args.branch} at {(session.store.position_entry() or 'the start')[:10]}")
            return 0
    restore = args.restore_files
    if args.summarize:
        result = asyncio.run(
            on_workbench(
                args, lambda wb: wb.navigate(args.entry, summarize=True, restore_files=restore)
            )
        )
    else:
        with open_session(args) as session:
            result = asyncio.run(session.navigate(args.entry, restore_files=restore))
    print(result.render_text())
    return 0
