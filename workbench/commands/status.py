"""`workbench status [BRANCH]`: a branch's conversation since its fork and its changed files."""

from __future__ import annotations

import argparse
import asyncio
import json

from workbench.agent.models.choice import warm_soon
from workbench.commands._session import add_format_option, add_session_option, open_session


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("branch", nargs="?", help="default: the session's current branch")
    add_session_option(parser)
    add_format_option(parser)


def run(args: argparse.Namespace) -> int:
    warm_soon()  # a run on the branch is likely next
    with open_session(args, readonly=True) as session:
        status = asyncio.run(session.status(args.branch))
    print(json.dumps(status.to_json(), indent=2) if args.format == "json" else status.render_text())
    return 0
