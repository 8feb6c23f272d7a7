"""MCP servers for tests: `.mcp.json` entries that start `mcp_server.py` (the official SDK) with
a marker file, the files that name them, and a streamable HTTP or SSE server on loopback."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from support.workbench_process import write_user_settings

SERVER = Path(__file__).resolve().parent / "mcp_server.py"
START_S = 120.0
"""The `mcp.timeout` the tests give a server: a Python server importing the SDK takes several
seconds on a loaded machine; a limit against a hang, not a measure."""


def stdio_entry(marker: Path, mode: str = "stdio") -> dict[str, Any]:
    """A stdio server that writes `marker` when it starts."""
    return {"command": sys.executable, "args": [str(SERVER), str(marker), mode]}


def write_servers(path: Path, servers: dict[str, Any]) -> Path:
    """An `mcpServers` file (`.mcp.json` or the user's `mcp.json`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return path


def user_file() -> Path:
    from workbench.config import agent_dir

    return agent_dir() / "mcp.json"


def allow_start(seconds: float = START_S, disabled: list[str] | None = None) -> None:
    """The user's settings: how long a session waits for its servers, which are turned off."""
    write_user_settings({"mcp": {"timeout": seconds, "disabled": disabled or []}})


def wait_for(path: Path, timeout: float = 60.0) -> bool:
    """Whether `path` appears within `timeout` (a limit against a hang)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            return True
        time.sleep(0.05)
    return False


@contextmanager
def http_server(marker: Path, mode: str = "http") -> Iterator[str]:
    """A streamable HTTP (or, with `mode` "sse", SSE) MCP server on a free loopback port, for
    the test's length; its URL."""
    process = subprocess.Popen(
        [sys.executable, str(SERVER), str(marker), mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), url
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)
