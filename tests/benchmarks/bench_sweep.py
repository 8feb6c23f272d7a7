"""Sweep benchmark (a script, not part of the test run).

    python tests/benchmarks/bench_sweep.py [--runs N] [--cold]

Against the local OpenAI-compatible server (a fast model: each answer streams at once):
1. one run alone (`workbench sweep` with one variant, as the user starts it): wall time;
2. 8 runs, `--jobs 4` (2 variants x 4 repeats): wall time, against 2 x one run's;
3. preparing 8 branches and worktrees on a 1,000-file repository (`start_sweep`: the forks), wall
   and CPU (git's and ours: what an idle machine's wall time comes to), and for `--executor ray`
   (the runs work on the workers). Each worktree is checked out when its run starts, so its
   checkout is in the run's time (2.), not here;
4. memory per running child (the largest resident set seen of each run's process).
Goals (issue 28): 2. within 1.3 x of 2 x one run; 3. under 1 s in total.
Children start warm (the warm interpreter) unless `--cold`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from support.git_project import make_project
from support.openai_server import OpenAIServer, Reply

from workbench.processes import forkserver

MARKER = b"WORKBENCH_SWEEP_RUN="


def sweep(project: Path, server: OpenAIServer, *args: str) -> float:
    """Seconds of one `workbench sweep` process, start to exit."""
    started = time.perf_counter()
    done = subprocess.run(
        [
            *(sys.executable, "-m", "workbench", "sweep", "--api-base", server.url),
            *("--api-key", "k", *args, "--format", "json", "--", "say ok"),
        ],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"the sweep failed: {done.stderr}")
    return time.perf_counter() - started


def _field(pid: int | str, name: str) -> int | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    line = next((x for x in status.splitlines() if x.startswith(f"{name}:")), None)
    return int(line.split()[1]) if line else None


def rss_of_children(stop: threading.Event, seen: dict[int, int]) -> None:
    """The largest resident set (kB) of each run's child: the leader of the process group of a
    process that carries a sweep run's marker (a warm child's own environment is set after its
    fork, so /proc shows the marker on what it starts: git, the tools)."""
    while not stop.is_set():
        for environ in Path("/proc").glob("[0-9]*/environ"):
            try:
                if MARKER not in environ.read_bytes():
                    continue
                stat = (environ.parent / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            leader = int(stat[2])
            if (rss := _field(leader, "VmRSS")) is not None:
                seen[leader] = max(seen.get(leader, 0), rss)
        time.sleep(0.05)


def prepare_eight(scratch: Path, checkout: bool = True) -> tuple[float, float]:
    """Seconds for the forks of 8 runs on a 1,000-file repository: wall and CPU (ours and the
    git processes')."""
    from workbench.sessions.session import Session
    from workbench.sweeps.engine import SweepRequest, start_sweep
    from workbench.sweeps.variants import parse_variants

    files = {f"src/m{i // 50}/f{i}.py": f"x = {i}\n" for i in range(1000)}
    project = make_project(scratch / "big", files)
    variants = parse_variants(["model=openai/a", "model=openai/b"])
    request = SweepRequest("say ok", variants, 4, checkout=checkout)
    with Session.create(project) as session:
        cpu, started = _cpu(), time.perf_counter()
        asyncio.run(start_sweep(session, request))
        return time.perf_counter() - started, _cpu() - cpu


def _cpu() -> float:
    """CPU seconds of this process and its finished children (git)."""
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="repetitions of each measurement")
    parser.add_argument("--cold", action="store_true", help="start every child cold")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="wb-bench-sweep-") as scratch:
        measure(Path(scratch), args.runs, args.cold)


def measure(scratch: Path, runs: int, cold: bool) -> None:
    home = scratch / "home"
    os.environ.update(
        HOME=str(home),
        PI_CODING_AGENT_DIR=str(home / ".pi" / "agent"),
        LITELLM_LOCAL_MODEL_COST_MAP="True",
        WORKBENCH_WARM_START="0" if cold else "1",
    )
    print(f"load average before: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores, shared)")
    project = make_project(scratch / "project")
    with OpenAIServer([Reply(text="ok")] * 1000) as server:
        sweep(project, server, "--variant", "model=openai/warmup")  # starts the warm interpreter
        one = [sweep(project, server, "--variant", "model=openai/a") for _ in range(runs)]
        seen: dict[int, int] = {}
        stop = threading.Event()
        sampler = threading.Thread(target=rss_of_children, args=(stop, seen), daemon=True)
        sampler.start()
        eight = [
            sweep(
                project,
                server,
                "--variant",
                "model=openai/a",
                "--variant",
                "model=openai/b",
                "--repeat",
                "4",
                "--jobs",
                "4",
            )
            for _ in range(runs)
        ]
        stop.set()
        sampler.join()
    forks = [prepare_eight(scratch / f"forks-{n}") for n in range(runs)]
    bare = [prepare_eight(scratch / f"bare-{n}", checkout=False) for n in range(runs)]
    one_s, eight_s = statistics.median(one), statistics.median(eight)
    print(f"one run alone:                   median {one_s:6.2f} s  (runs: {one})")
    print(f"8 runs, --jobs 4:                median {eight_s:6.2f} s")
    print(f"  against 2 x one run:           {eight_s / (2 * one_s):.2f} x  (goal: <= 1.3 x)")
    for name, made in (("8 branches + worktrees", forks), ("8 branches, no checkout", bare)):
        wall, cpu = statistics.median(w for w, _ in made), statistics.median(c for _, c in made)
        print(f"{name}, 1,000 files: median {wall:.2f} s wall, {cpu:.2f} s CPU (goal < 1 s)")
    if seen:
        mb = sorted(kb / 1024 for kb in seen.values())
        median, largest = statistics.median(mb), mb[-1]
        print(f"memory per running child:        median {median:.0f} MB, max {largest:.0f} MB")
        print(f"  ({len(mb)} children sampled)")
    forkserver.stop(forkserver.WARM_UP, os.environ)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
