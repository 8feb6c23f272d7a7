"""MCP start-up cost and bounds benchmark (a script, not part of the test run).

    python tests/benchmarks/bench_mcp.py [--runs N] [--servers 0,1,3] [--result-mb 10,100]
                                         [--flood N]

1. Start-up: as the median of N runs, the time from starting `workbench -p` (a real process, a
   fresh home with the servers in `~/.pi/agent/mcp.json`) to its first request reaching the local
   OpenAI-compatible server, with 0, 1 and 3 stdio MCP servers (`tests/support/mcp_server.py`,
   made with the official SDK). The servers start in parallel while the session opens, and the
   first request waits until they have answered: the difference to 0 servers is what MCP costs.
   `--servers ""` leaves it out.
2. Bounds: while a tool call returns about M MB (`huge`), or while the server writes N
   notifications before its answer (`flood`), how late the session's event loop (the app's, in
   the app) runs a 10 ms tick, as the p99 and worst lag (a keystroke waits that long), and how
   long the call took to end (a result, or the tool error that says the result was too big).
"""

from __future__ import annotations

import argparse
import asyncio
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
        model = ["--model", "openai/bench", "--api-base", server.url, "--api-key", "k"]
        done = subprocess.run(
            [sys.executable, "-m", "workbench", "-p", "hi", "--no-session", *model],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode != 0 or not server.request_times:
            raise SystemExit(f"the run failed: {done.stderr[-2000:]}")
        return server.request_times[0] - started


async def loop_lag(home: Path, project: Path, tool: str, args: dict[str, int]) -> str:
    """The p99 and worst lag of a 10 ms tick while `tool` runs, and how it ended."""
    from workbench.runtime import Workbench, WorkbenchOptions
    from workbench.tool import ToolContext

    agent = home / ".pi" / "agent"
    agent.mkdir(parents=True, exist_ok=True)
    entry = {"command": sys.executable, "args": [str(SERVER), str(home / "big.started")]}
    (agent / "mcp.json").write_text(json.dumps({"mcpServers": {"big": entry}}), encoding="utf-8")
    (agent / "settings.json").write_text(json.dumps({"mcp": {"timeout": 120}}), encoding="utf-8")
    os.environ.update(HOME=str(home), PI_CODING_AGENT_DIR=str(agent))
    wb = await Workbench.open(WorkbenchOptions(cwd=project, model="demo"))
    try:
        call = wb.agent.state.tools[f"mcp__big__{tool}"].execute(args, ToolContext(project))
        lags: list[float] = []
        started = time.perf_counter()
        running = asyncio.ensure_future(call)
        while not running.done():
            before = time.perf_counter()
            await asyncio.sleep(0.01)
            lags.append((time.perf_counter() - before - 0.01) * 1000)
        took = time.perf_counter() - started
        result = running.result()
    finally:
        await wb.close()
    lags.sort()
    ended = "tool error" if result.is_error else "result"
    return (
        f"event-loop lag p99 {lags[int(len(lags) * 0.99)]:.0f} ms, worst {lags[-1]:.0f} ms;"
        f" {ended} after {took:.1f} s: {result.text[:150]!r}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per server count (median)")
    parser.add_argument("--servers", default="0,1,3", help="the server counts to measure")
    parser.add_argument("--result-mb", default="10,100", help="the huge results' sizes")
    parser.add_argument("--flood", type=int, default=100_000, help="notifications in a flood")
    args = parser.parse_args()
    counts = [int(n) for n in args.servers.split(",") if n]
    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder) / "project"
        (project / ".git").mkdir(parents=True)
        if counts:
            first_request(Path(folder) / "warm-up", project, 0)  # the file cache, not measured
        for count in counts:
            seconds = [
                first_request(Path(folder) / f"home-{count}-{run}", project, count)
                for run in range(args.runs)
            ]
            ms = sorted(s * 1000 for s in seconds)
            print(
                f"{count} MCP server(s): first request after median {statistics.median(ms):8.0f}"
                f" ms   (min {ms[0]:.0f}, max {ms[-1]:.0f})",
                flush=True,
            )
        for mb in [int(n) for n in args.result_mb.split(",") if n]:
            lines = {"lines": mb * 1024 * 1024 // 68}
            said = asyncio.run(loop_lag(Path(folder) / f"home-{mb}mb", project, "huge", lines))
            print(f"a {mb} MB result: {said}", flush=True)
        if args.flood:
            count = {"count": args.flood}
            said = asyncio.run(loop_lag(Path(folder) / "home-flood", project, "flood", count))
            print(f"{args.flood} notifications: {said}", flush=True)


if __name__ == "__main__":
    main()
