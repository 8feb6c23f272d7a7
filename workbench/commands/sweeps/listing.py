"""`workbench sweeps`: the sweeps of a session, oldest first."""

from __future__ import annotations

import argparse
import json

from workbench.commands._session import add_format_option, add_session_option, open_session


def configure(parser: argparse.ArgumentParser) -> None:
    add_session_option(parser)
    add_format_option(parser)


def run(args: argparse.Namespace) -> int:
    from workbench.sweeps.engine import sweeps_of
    from workbench.sweeps.table import render_list

    with open_session(args, readonly=True) as session:
        sweeps = sweeps_of(session)
    if args.format == "json":
        print(json.dumps([s.to_json() for s in sweeps], indent=2))
    else:
        print(render_list(sweeps))
    return 0
