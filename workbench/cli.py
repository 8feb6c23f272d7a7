"""Command-line entry point: parse arguments and hand over to a front end.

Kept light on purpose: `workbench --help` and `--version` import nothing but argparse. Each
subcommand lives in `workbench.commands.<name>` with `configure(parser)` and `run(args) -> int`,
imported only when that subcommand runs.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn

from workbench import __version__

SUBCOMMANDS: dict[str, str] = {
    "lint": "check skill folders and report findings",
    "graph": "print the skill graph as a tree, JSON, Mermaid or DOT",
    "compile": "write each skill's summary, core and full projections to disk",
    "sessions": "list the project's sessions, most recently active first",
    "tree": "show a session's conversation tree (branches, entries, labels, position)",
    "navigate": "move a session's position to an entry or a branch head",
    "fork": "start a conversation branch (with its own git worktree in a git project)",
    "status": "show a branch's conversation since its fork and its changed files",
    "commit": "commit a branch's file changes and record a checkpoint",
    "merge": "merge a branch's commits and conversation into its parent",
    "label": "label an entry of a session",
}
"""Subcommand name -> one-line help. The module `workbench.commands.<name>` implements it."""

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    """Reports bad arguments as one line on stderr with exit code 2, not a usage dump."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {message} (see `{self.prog} --help`)", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def _main_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="workbench",
        description="A keyboard-driven terminal workbench for LLM agent sessions.",
        epilog="subcommands:\n"
        + "\n".join(f"  {name:<10} {text}" for name, text in SUBCOMMANDS.items())
        + "\n\nRun `workbench SUBCOMMAND --help` for a subcommand's options.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"workbench {__version__}")
    return parser


def _subcommand_parser(name: str) -> argparse.ArgumentParser:
    return _Parser(prog=f"workbench {name}", description=SUBCOMMANDS[name])


def _report(exc: Exception) -> None:
    """Print an expected failure as one line (plus the hint), never a traceback."""
    from workbench.errors import WorkbenchError

    if isinstance(exc, WorkbenchError):
        print(f"workbench: {exc.message}", file=sys.stderr)
        if exc.hint:
            print(f"  hint: {exc.hint}", file=sys.stderr)
    else:
        print(f"workbench: {exc}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run workbench with `argv` (default: the process arguments); return the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    first = next((a for a in args if not a.startswith("-")), None)
    if first in SUBCOMMANDS and args.index(first) == 0:
        module = importlib.import_module(f"workbench.commands.{first}")
        parser = _subcommand_parser(first)
        module.configure(parser)
        parsed = parser.parse_args(args[1:])
        from workbench.errors import UsageError, WorkbenchError

        try:
            return int(module.run(parsed))
        except UsageError as exc:
            _report(exc)
            return EXIT_USAGE
        except WorkbenchError as exc:
            _report(exc)
            return EXIT_FAILURE
        except KeyboardInterrupt:
            return 130
    parser = _main_parser()
    parser.parse_args(args)
    parser.print_help()
    return EXIT_OK
