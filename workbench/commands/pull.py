"""`workbench pull [REMOTE]`: the sessions others pushed; a diverged branch keeps both lines."""

from __future__ import annotations

import argparse
import json

from workbench.commands._session import add_format_option, project_root


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "remote",
        nargs="?",
        help="a git remote name, URL or path (default: the branch's upstream remote, else origin)",
    )
    add_format_option(parser)


def run(args: argparse.Namespace) -> int:
    import sys

    from workbench.sessions.share.sharing import pull

    result = pull(project_root(), args.remote)
    print(json.dumps(result.to_json(), indent=2) if args.format == "json" else result.render_text())
    for line in result.diverged:
        print(f"workbench: kept both lines: {line}", file=sys.stderr)
    for session, why in result.skipped.items():
        print(f"workbench: warning: session {session} not pulled: {why}", file=sys.stderr)
    return 0
