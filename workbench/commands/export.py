"""`workbench export`: a branch as one self-contained HTML file, or Markdown for a pull request."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from workbench.commands._session import add_session_option, open_session


def configure(parser: argparse.ArgumentParser) -> None:
    add_session_option(parser)
    parser.add_argument("--branch", metavar="B", help="default: the session's current branch")
    parser.add_argument("--format", choices=("html", "md"), default="html")
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="where to write it ('-': stdout; default: workbench-<session>-<branch>.<format> here)",
    )


def run(args: argparse.Namespace) -> int:
    from workbench.sessions.export.branch_export import default_path, export_text, write_export

    with open_session(args, readonly=True) as session:
        if args.output == "-":
            text, _, _ = export_text(session.store, session.workspaces, args.branch, args.format)
            sys.stdout.write(text)
            return 0
        branch = args.branch or session.branch
        path = (
            Path(args.output)
            if args.output
            else default_path(Path.cwd(), session.id, branch, args.format)
        )
        result = write_export(session.store, session.workspaces, args.branch, args.format, path)
    print(result.render_text())
    return 0
