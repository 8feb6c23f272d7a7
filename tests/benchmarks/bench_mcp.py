"""MCP start-up cost benchmark (a script, not part of the test run).

    python tests/benchmarks/bench_mcp.py [--runs N] [--servers 0,1,3]

Measures, as the median of N runs, the time from starting `workbench -p` (a real process, a
fresh home with the servers in `~/.pi/agent/mcp.json`) to its first request reaching the local
OpenAI-compatible server, with 0, 1 and 3 stdio MCP servers (`tests/support/mcp_server.py`, made
with the official SDK). The servers start in parallel while the session opens, and the first
request waits until they have answered: the difference to 0 servers is what MCP costs a user.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from support.mcp_config import SERVER
from support.openai_server import OpenAIServer, Reply


def first_request(home: Path, project: Path, servers: int) -> float:
    """Seconds from the process start to its first model request."""
    agent = home / ".pi" / "agent"
    agent.mkdir(parents=True, exist_ok=True)
    entries = {
        f"s{n}": {"command": sys.executable, "args": [str(SERVER), str(home / f"s{n}.started")]}
        for n in range(servers)
    }
    (agent / "mcp.json").write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")
    (agent / "settings.json").write_text(json.dumps({"mcp": {"timeout": 120}}), encoding="utf-8")
    env = {**os.environ, "HOME": str(home), "PI_CODING_AGENT_DIR": str(agent)}
    env["WORKBENCH_WARM_START"] = "0"
    with OpenAIServer([Reply(text="ok")]) as server:
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "workbench", "-p", "hi", "--no-session"]
            + ["--model", "openai/bench", "--api-base", server.url, "--api-key", "k"],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode != 0 or not server.request_times:
            raise SystemExit(f"the run failed: {done.stderr[-2000:]}")
        return server.request_times[0] - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per server count (median)")
    parser.add_argument("--servers", default="0,1,3", help="the server counts to measure")
    args = parser.parse_args()
    counts = [int(n) for n in args.servers.split(",")]
    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder) / "project"
        (project / ".git").mkdir(parents=True)
        first_request(Path(folder) / "warm-up", project, 0)  # the file cache, not measured
        for count in counts:
            seconds = [
                first_request(Path(folder) / f"home-{count}-{run}", project, count)
                for run in range(args.runs)
            ]
            ms = sorted(s * 1000 for s in seconds)
            print(
                f"{count} MCP server(s): first request after median {statistics.median(ms):8.0f}"
                f" ms   (min {ms[0]:.0f}, max {ms[-1]:.0f})"
            )


if __name__ == "__main__":
    main()
