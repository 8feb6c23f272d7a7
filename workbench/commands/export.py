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
    parser.add_argument(
        "--redact",
        action="store_true",
        help="write credentials found in it replaced (without it, one found stops the export)",
    )


def run(args: argparse.Namespace) -> int:
    from workbench.sessions.export.branch_export import (
        default_path,
        export_text,
        notes,
        write_export,
    )

    with open_session(args, readonly=True) as session:
        if args.output == "-":
            text, made = export_text(
                session.store, session.workspaces, args.branch, args.format, args.redact
            )
            sys.stdout.write(text)
            for line in notes(made.untracked, made.redacted):
                print(line, file=sys.stderr)
            return 0
        branch = args.branch or session.branch
        path = (
            Path(args.output)
            if args.output
            else default_path(Path.cwd(), session.id, branch, args.format)
        )
        result = write_export(
            session.store, session.workspaces, args.branch, args.format, path, args.redact
        )
    print(result.render_text())
    return 0
