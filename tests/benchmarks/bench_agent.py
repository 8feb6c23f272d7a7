"""Agent start-up and loop benchmarks (a script, not part of the test run).

    python tests/benchmarks/bench_agent.py [--runs N]

Measures, each as the median of N runs:
1. `workbench -p` with a `scripted:` model (read a file, then answer), process start to exit, in a
   stored session (the default) and with `--no-session`;
2. the same turn against the local OpenAI-compatible server with a model string, through litellm:
   without the warm interpreter (WORKBENCH_WARM_START=0), and with it (after one run that starts
   it); each also until the first request reaches the server;
3. the loop's own overhead from a tool result to the next model request, in-process through the
   real litellm path and the local server, over a 20-step conversation (stored session, and in
   memory).

For comparison (issue 4, same kind of machine): pi takes 1.88 s for the read-then-answer turn as
a whole process, 1.70 s of it before the first request, and 52 ms from tool result to next request.
`bench_vs_pi.py` times the same turn against pi built from source, in one batch.
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

from process_turns import READ, TimedServer, project, read_then_answer, timed_run
from support.openai_server import OpenAIServer, Reply

from workbench.agent.events import Event
from workbench.agent.store import MemoryStore
from workbench.processes import forkserver
from workbench.processes.forkserver import WARM_UP
from workbench.runtime import Workbench, WorkbenchOptions
from workbench.skills.graph import SkillGraph

WORKBENCH = [sys.executable, "-m", "workbench"]


def scripted(runs: int, cwd: Path, env: dict[str, str], *extra: str) -> list[float]:
    args = ["-p", *extra, "--model", "scripted:script.json", "go"]
    return [timed_run([*WORKBENCH, *args], cwd, env) for _ in range(runs)]


def against_server(runs: int, cwd: Path, env: dict[str, str]) -> tuple[list[float], list[float]]:
    """Whole-process times, and times until the first request reached the server."""
    totals, first_requests = [], []
    with TimedServer() as server:
        args = ["-p", "--model", "openai/bench", "--api-base", server.url, "--api-key", "k"]
        for _ in range(runs):
            turn = read_then_answer(server, [*WORKBENCH, *args, "what is in notes.txt?"], cwd, env)
            totals.append(turn.total)
            first_requests.append(turn.first_request)
    return totals, first_requests


async def loop_overhead(cwd: Path, store: MemoryStore | None, steps: int = 20) -> list[float]:
    """Seconds from each tool result (tool_execution_end) to the next request at the server."""
    script = [Reply(tool_calls=[READ]) for _ in range(steps)] + [Reply(text="done")]
    with OpenAIServer(script) as server:
        workbench = await Workbench.open(
            WorkbenchOptions(
                cwd=cwd,
                model="openai/bench",
                api_base=server.url,
                api_key="k",
                skills=SkillGraph([]),
                store=store,
            )
        )
        tool_ends: list[float] = []

        def on_event(event: Event) -> None:
            if event.type == "tool_execution_end":
                tool_ends.append(time.perf_counter())

        workbench.subscribe(on_event)
        await workbench.prompt("read it again and again")
        await workbench.wait_idle()
        return [
            request - end for end, request in zip(tool_ends, server.request_times[1:], strict=False)
        ]


def report(label: str, seconds: list[float]) -> None:
    ms = sorted(s * 1000 for s in seconds)
    print(
        f"{label:58} median {statistics.median(ms):8.1f} ms   (min {ms[0]:.1f}, max {ms[-1]:.1f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory(prefix="wb-bench-") as scratch:
        measure_all(runs, Path(scratch))


def measure_all(runs: int, scratch: Path) -> None:
    cwd = project(scratch / "project")
    home = scratch / "home"
    os.environ.update(
        HOME=str(home),
        PI_CODING_AGENT_DIR=str(home / ".pi" / "agent"),
        LITELLM_LOCAL_MODEL_COST_MAP="True",
        WORKBENCH_WARM_START="0",
    )
    env = dict(os.environ)
    print(f"load average before: {os.getloadavg()[0]:.2f} (2 cores, shared with other work)")

    report("scripted: -p, process start to exit", scripted(runs, cwd, env))
    report(
        "scripted: -p --no-session, process start to exit", scripted(runs, cwd, env, "--no-session")
    )

    cold = {**env, "WORKBENCH_WARM_START": "0"}
    totals, firsts = against_server(runs, cwd, cold)
    report("model string, no warm interpreter: whole process", totals)
    report("model string, no warm interpreter: until first request", firsts)

    warm = {**env, "WORKBENCH_WARM_START": "1"}
    start_up, _ = against_server(1, cwd, warm)
    report("model string, first run (starts the warm interpreter)", start_up)
    forkserver.wait_serving(WARM_UP, warm)  # the first run did not wait for it
    totals, firsts = against_server(runs, cwd, warm)
    report("model string, warm interpreter: whole process", totals)
    report("model string, warm interpreter: until first request", firsts)
    forkserver.stop(WARM_UP, warm)

    report(
        "loop: tool result -> next model request (litellm, 20 steps)",
        asyncio.run(loop_overhead(cwd, None)),
    )
    report(
        "loop: the same, conversation in memory (--no-session)",
        asyncio.run(loop_overhead(cwd, MemoryStore())),
    )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
