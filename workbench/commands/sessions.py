"""`workbench sessions`: the project's sessions, most recently active first."""

from __future__ import annotations

import argparse
import json

from workbench.commands._session import add_format_option, project_root


def configure(parser: argparse.ArgumentParser) -> None:
    add_format_option(parser)


def run(args: argparse.Namespace) -> int:
    from workbench.sessions.store.catalog import list_sessions

    infos = list_sessions(project_root())
    if args.format == "json":
        print(json.dumps([info.to_json() for info in infos], indent=2))
    elif not infos:
        print("no sessions yet")
    else:
        print("\n".join(info.render_text() for info in infos))
    return 0
