"""`workbench tree`: every branch and entry of a session, where each forked, and where you are."""

from __future__ import annotations

import argparse
import asyncio
import json

from workbench.commands._session import add_format_option, add_session_option, open_session


def configure(parser: argparse.ArgumentParser) -> None:
    add_session_option(parser)
    add_format_option(parser)


def run(args: argparse.Namespace) -> int:
    with open_session(args, readonly=True) as session:
        tree = asyncio.run(session.tree())
    print(json.dumps(tree.to_json(), indent=2) if args.format == "json" else tree.render_text())
    return 0
