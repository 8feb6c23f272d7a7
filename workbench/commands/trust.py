"""`workbench trust [PATH]`: trust a project folder for good, list what is trusted, revoke it.

A project's configuration (extensions, settings, agents) applies only where the user trusts it
(`workbench.trust`): `--trust` covers one run in the project opened, never a session branch's
worktree; this command records trust for one folder, which is how a pulled branch's worktree
is trusted after reading what it holds.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from workbench.config import find_project_root
from workbench.errors import UsageError, WorkbenchError
from workbench.trust import TrustStore, session_worktree


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "path", nargs="?", help="the project folder to trust (default: the current project)"
    )
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--list", action="store_true", help="list the folders you trust")
    action.add_argument("--revoke", action="store_true", help="stop trusting PATH")


def run(args: argparse.Namespace) -> int:
    store = TrustStore()
    if args.list:
        if args.path:
            raise UsageError("--list takes no PATH", "run `workbench trust --list`")
        return _list(store)
    given = Path(args.path or ".").expanduser()
    if args.revoke:
        return _revoke(store, given)
    if not given.is_dir():
        raise UsageError(f"{given} is not a folder", "name the project folder to trust")
    root = find_project_root(given)
    store.trust(root)
    print(f"trusted {root}: its extensions, settings and agents apply from its next session")
    if session_worktree(root):
        print("  a session branch's worktree: a pull that brings new files into it withdraws this")
    return 0


def _list(store: TrustStore) -> int:
    projects = store.projects()
    if not projects:
        print("no trusted projects")
    for project in projects:
        path = Path(project)
        note = " (gone)" if not path.is_dir() else ""
        note += " (a session branch's worktree)" if session_worktree(path) else ""
        print(f"{project}{note}")
    return 0


def _revoke(store: TrustStore, given: Path) -> int:
    candidates = [given.resolve()]
    if given.is_dir():
        candidates.append(find_project_root(given))
    for folder in candidates:
        if store.revoke(folder):
            print(f"no longer trusted: {folder}")
            return 0
    raise WorkbenchError(
        f"{given.resolve()} is not a trusted project", "`workbench trust --list` shows what is"
    )
