"""`workbench mcp list`: the MCP servers a session in this folder would start, started once to
show each one's state, tools and last error (the project's `.mcp.json` only when trusted)."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

from workbench.commands._session import add_format_option
from workbench.runtime.commands import get


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("list",), help="list: start each server, report it")
    parser.add_argument(
        "--trust", action="store_true", help="trust this project for this run (its .mcp.json)"
    )
    add_format_option(parser)


def run(args: argparse.Namespace) -> int:
    from workbench.config import find_project_root
    from workbench.runtime.mcp_controls import McpControls, McpReport
    from workbench.runtime.options import WorkbenchOptions
    from workbench.trust import granted, project_settings

    cwd = Path.cwd().resolve()
    root = find_project_root(cwd)
    options = WorkbenchOptions(cwd=cwd, trust=args.trust)
    controls = McpControls(options, project_settings(root, granted(args.trust, cwd)), root)

    async def report() -> McpReport:
        try:
            await controls.offered([], None)
            return controls.report()
        finally:
            await controls.close()

    found = asyncio.run(report())
    command = get("cli", "mcp")
    if args.format == "json":
        print(json.dumps(command.to_json(found), indent=2))
    else:
        print(command.render(found))
        for problem in controls.setup.problems:
            print(f"warning: {problem}")
    return 1 if controls.failed() else 0
