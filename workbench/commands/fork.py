"""`workbench fork NAME`: a new conversation branch (and worktree) at the current or an entry."""

from __future__ import annotations

import argparse
import os
import sys

from workbench.commands._session import add_session_option, open_session

CLOSED_ON_RETURN = True
"""Everything `run` opens is closed and flushed when it returns (the session, its lock and
git processes; the warm start's child is on its own): the CLI ends the process at once instead
of tearing down its modules, about 15 ms of a fork's 300."""


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
    _warm_soon_after_exit()
    return 0


def _warm_soon_after_exit() -> None:
    """Start the warm interpreter (a run on the new branch is likely next) from a child process
    of its own, once the answer is out: its imports would take the CPU the checkout needs, and
    finding its server (the name hashes the code's files) takes tens of milliseconds that the
    fork's own process need not wait for."""
    if not hasattr(os, "fork"):  # no warm interpreter where there is no fork
        return
    if os.fork() != 0:
        return
    try:
        quiet = os.open(os.devnull, os.O_RDWR)
        for stream in (0, 1, 2):  # whoever reads the fork's output sees it end with the fork
            os.dup2(quiet, stream)
        from workbench.agent.models.choice import warm_soon

        warm_soon()
    finally:
        os._exit(0)
