"""Sub-agent start-up benchmark (a script, not part of the test run).

    python tests/benchmarks/bench_subagents.py [--runs N]

Measures, each as the median of N runs, from the parent starting a child (`subagents.run.run_child`,
the tool's own path: temp files, spawn, reading events) to the child's first request reaching the
local OpenAI-compatible server, and to the child's end:
1. cold: a fresh `python -m workbench` per child, importing litellm itself (WORKBENCH_WARM_START=0);
2. warm: forked by the warm interpreter (after one child that starts it, timed separately);
3. four warm children started at once (a parallel call): until the last first request.
Goal (issue 7): warm under 0.5 s median to the first request, against several seconds cold.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from support.openai_server import OpenAIServer, Reply

from workbench.agent.subagents.agent_files import AgentDef
from workbench.agent.subagents.report import ChildReport
from workbench.agent.subagents.run import Launch, run_child
from workbench.processes import forkserver


def launch(cwd: Path, server: OpenAIServer) -> Launch:
    agent = AgentDef("bench", "benchmark agent", "Answer briefly.", "user", cwd / "bench.md")
    return Launch(agent, "say ok", cwd, "openai/bench", dict(os.environ), server.url, "k")


async def children(cwd: Path, count: int) -> tuple[float, float]:
    """Seconds from the start to the last child's first request, and to the last child's end."""
    with OpenAIServer([Reply(text="ok") for _ in range(count)]) as server:
        reports = [ChildReport("bench", "user", "say ok") for _ in range(count)]
        started = time.perf_counter()
        await asyncio.gather(
            *(run_child(launch(cwd, server), r, 120, lambda: None) for r in reports)
        )
        ended = time.perf_counter() - started
        failed = [r.error for r in reports if not r.ok]
        if failed or len(server.request_times) != count:
            raise SystemExit(f"a child failed: {failed}")
        return max(server.request_times) - started, ended


def report(label: str, seconds: list[float]) -> None:
    ms = sorted(s * 1000 for s in seconds)
    print(
        f"{label:52} median {statistics.median(ms):8.1f} ms   (min {ms[0]:.1f}, max {ms[-1]:.1f})"
    )


def measure(label: str, runs: int, cwd: Path, count: int = 1) -> None:
    results = [asyncio.run(children(cwd, count)) for _ in range(runs)]
    report(f"{label}: to first request", [first for first, _ in results])
    report(f"{label}: to the child's end", [end for _, end in results])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory(prefix="wb-bench-") as scratch:
        measure_all(runs, Path(scratch))


def measure_all(runs: int, scratch: Path) -> None:
    cwd = scratch / "project"
    (cwd / ".git").mkdir(parents=True)
    home = scratch / "home"
    os.environ.update(
        HOME=str(home),
        PI_CODING_AGENT_DIR=str(home / ".pi" / "agent"),
        LITELLM_LOCAL_MODEL_COST_MAP="True",
    )
    print(f"load average before: {os.getloadavg()[0]:.2f} (2 cores, shared with other work)")

    os.environ["WORKBENCH_WARM_START"] = "0"
    measure("cold child", runs, cwd)

    os.environ["WORKBENCH_WARM_START"] = "1"
    measure("first warm child (starts the warm interpreter)", 1, cwd)
    measure("warm child", runs, cwd)
    measure("4 warm children at once", runs, cwd, count=4)
    forkserver.stop(forkserver.WARM_UP, os.environ)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
