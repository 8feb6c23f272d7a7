"""`workbench push [REMOTE]`: a session's conversation and experiment commits to a git remote."""

from __future__ import annotations

import argparse
import json

from workbench.commands._session import add_format_option, add_session_option, project_root


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "remote",
        nargs="?",
        help="a git remote name, URL or path (default: the branch's upstream remote, else origin)",
    )
    add_session_option(parser)
    parser.add_argument(
        "--redact",
        action="store_true",
        help="send the entries with the credentials found in them replaced (a copy: yours are "
        "unchanged); a credential in a commit still stops the push (amend it first)",
    )
    add_format_option(parser)


def run(args: argparse.Namespace) -> int:
    from workbench.sessions.share.sharing import push

    result = push(project_root(), args.session, args.remote, redact=args.redact)
    print(json.dumps(result.to_json(), indent=2) if args.format == "json" else result.render_text())
    return 0
