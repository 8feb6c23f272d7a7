"""`workbench merge BRANCH`: merge a branch's commits and conversation back into its parent."""

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
    parser.add_argument("branch", nargs="?", help="default: the session's current branch")
    parser.add_argument("--into", metavar="PARENT", help="default: the branch's parent")
    removal = parser.add_mutually_exclusive_group()
    removal.add_argument(
        "--remove-worktree",
        dest="remove_worktree",
        action="store_true",
        default=None,
        help="remove the branch's worktree after merging "
        "(default: setting sessions.remove_worktree_after_merge, else keep)",
    )
    removal.add_argument("--keep-worktree", dest="remove_worktree", action="store_false")
    parser.add_argument(
        "--summarize",
        action="store_true",
        help="the session's model writes the merge summary (default: the branch's last reply)",
    )
    add_model_option(parser)
    add_session_option(parser)


def run(args: argparse.Namespace) -> int:
    if args.summarize:
        result = asyncio.run(
            on_workbench(args, lambda wb: wb.merge(args.branch, args.into, args.remove_worktree))
        )
    else:
        with open_session(args) as session:
            result = asyncio.run(
                session.merge(args.branch, args.into, remove_worktree=args.remove_worktree)
            )
    print(result.render_text())
    return 0
