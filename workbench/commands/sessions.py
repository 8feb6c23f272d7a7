"""`workbench sessions`: the project's sessions, most recently active first."""

from __future__ import annotations

import argparse
import json

from workbench.commands._session import add_format_option, project_root
from workbench.runtime.commands import get


def configure(parser: argparse.ArgumentParser) -> None:
    add_format_option(parser)


def run(args: argparse.Namespace) -> int:
    from workbench.sessions.store.catalog import list_sessions

    infos = list_sessions(project_root())
    command = get("cli", "sessions")
    print(
        json.dumps(command.to_json(infos), indent=2)
        if args.format == "json"
        else command.render(infos)
    )
    return 0
