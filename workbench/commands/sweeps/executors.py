"""Where a command's runs execute, read the same way by `workbench sweep` and `workbench eval`:
`--executor local` (children of this machine, `--jobs` at once) or `ray` (Ray tasks on a
cluster, the data travelling through a git remote)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.sessions.store.location import StorageLocation
    from workbench.sweeps.executor import Executor


def add_executor_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--executor", choices=("local", "ray"), default="local", help="where runs execute"
    )
    parser.add_argument(
        "--ray-address", metavar="ADDR", help="the Ray cluster (default: RAY_ADDRESS, else local)"
    )
    parser.add_argument(
        "--remote",
        metavar="URL",
        help="with --executor ray: the git remote the workers reach (default: one of the sweep's)",
    )


def choose_executor(args: argparse.Namespace, location: StorageLocation) -> Executor:
    """Children of this machine, or Ray tasks (`--executor ray`: a key given on the command
    line stays here, which the user is told)."""
    if args.executor == "ray":
        from workbench.sweeps.cluster.executor import RayExecutor

        if args.api_key or args.api_key_file:
            print(
                "workbench: the key is not sent to Ray's workers: they use the one in their "
                "environment (OPENAI_API_KEY, ANTHROPIC_API_KEY ...)",
                file=sys.stderr,
            )
        return RayExecutor(location, args.ray_address, args.remote)
    from workbench.sweeps.executor import LocalExecutor

    return LocalExecutor(args.jobs)


def where(args: argparse.Namespace) -> str:
    """How the runs execute, as the line before they start says it."""
    return "on Ray" if args.executor == "ray" else f"{args.jobs} at once"
