"""`workbench label TEXT`: label the current or a given entry; labels show in the tree."""

from __future__ import annotations

import argparse
import asyncio

from workbench.commands._session import add_session_option, open_session
from workbench.runtime.commands import get


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("label", help="the label, one line (e.g. before-refactor)")
    parser.add_argument(
        "--at", metavar="ENTRY", help="entry id, prefix or label (default: the current entry)"
    )
    add_session_option(parser)


def run(args: argparse.Namespace) -> int:
    with open_session(args) as session:
        entry = asyncio.run(session.label(args.label, args.at))
    print(get("cli", "label").render(entry))
    return 0
