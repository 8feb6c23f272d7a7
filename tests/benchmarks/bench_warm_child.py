"""What a warm `-p` run costs: the CPU time of the child the warm interpreter forks for it, and the
wall time to the first request and to exit, optionally side by side with another checkout.

Run: `python tests/benchmarks/bench_warm_child.py [--runs N] [--vs OTHER_CHECKOUT] [--turn]`

A warm interpreter is started for this checkout (and for `--vs`'s, with its own `.venv`), each
with its own empty home; then the checkouts take turns, `--runs` times each, running
`workbench -p --no-session` with the model `openai/bench` against the local SSE server
(tests/support/openai_server.py). The child's CPU (user+sys) is read as the growth of the warm
server's reaped-children time (`/proc/PID/stat`), so it does not depend on how busy the machine
is as wall time does; a child forked ahead (a spare) counts what it did before its request too.
Prints the medians per checkout, in milliseconds. `--turn`: the read-then-answer turn of
`bench_vs_pi.py` in a stored session (a project with a file to read), and also the time from
the end of the reply asking for the read to the request bringing its result, at the server
(each run's figure is printed too).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from process_turns import READ, TimedServer, project
from support.openai_server import Reply

HERE = Path(__file__).resolve().parents[2]
STOP = "from workbench.processes import forkserver as f; import os; f.stop(f.WARM_UP, os.environ)"


def _server_pid(home: str) -> int:
    """The warm server whose environment has `home` as HOME (not the spare child it forked
    ahead, which looks the same)."""
    found: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            words = stat.read_bytes().split(b"\0")
            env = stat.with_name("environ").read_bytes().split(b"\0")
            parent = int(stat.with_name("stat").read_text().rsplit(")", 1)[1].split()[1])
        except OSError:
            continue
        warm = any(w.endswith((b"warm_server", b"forkserver")) for w in words)
        if warm and f"HOME={home}".encode() in env:
            found[int(stat.parent.name)] = parent
    servers = [pid for pid, parent in found.items() if parent not in found]
    if len(servers) != 1:
        raise RuntimeError(f"no single warm server for {home}: {servers}")
    return servers[0]


def _children_cpu(pid: int) -> float:
    """Seconds of CPU of `pid`'s reaped children (cutime + cstime)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=8, help="runs per checkout (default: 8)")
    parser.add_argument("--vs", type=Path, help="another checkout with its own .venv")
    parser.add_argument("--turn", action="store_true", help="read a file, in a stored session")
    args = parser.parse_args()
    trees = [HERE, *([args.vs.resolve()] if args.vs else [])]
    rows: dict[Path, list[tuple[float, float, float, float]]] = {tree: [] for tree in trees}
    replies = [Reply(tool_calls=[READ]), Reply(text="hello")] if args.turn else [Reply(text="hi")]
    with TimedServer() as server:
        homes = {tree: tempfile.mkdtemp() for tree in trees}
        folders = {tree: project(Path(homes[tree]) / "project") for tree in trees}
        envs = {
            tree: {**os.environ, "HOME": homes[tree], "WORKBENCH_WARM_START": "1"} for tree in trees
        }
        for env in envs.values():
            env.pop("PI_CODING_AGENT_DIR", None)

        def command(tree: Path) -> list[str]:
            model = ["--model", "openai/bench", "--api-base", server.url, "--api-key", "k"]
            kept = [] if args.turn else ["--no-session"]
            return [str(tree / ".venv" / "bin" / "workbench"), "-p", *kept, *model, "hi"]

        for tree in trees:  # the first run starts the warm interpreter and waits for it
            server.add(*replies)
            run = subprocess.run(
                command(tree), cwd=folders[tree], env=envs[tree], capture_output=True
            )
            run.check_returncode()
        time.sleep(3)  # the server's imports for some runs only (the ACP SDK) come after its first
        pids = {tree: _server_pid(homes[tree]) for tree in trees}
        try:
            for _ in range(args.runs):
                for tree in trees:
                    server.add(*replies)
                    before, cpu = len(server.requests), _children_cpu(pids[tree])
                    ends = len(server.reply_ends)
                    started = time.perf_counter()
                    child = subprocess.Popen(
                        command(tree), cwd=folders[tree], env=envs[tree], stdout=subprocess.DEVNULL
                    )
                    while len(server.requests) == before:
                        time.sleep(0.001)
                    first = time.perf_counter() - started
                    child.wait()
                    whole = time.perf_counter() - started
                    time.sleep(1.0)  # the server reaps the child and readies its spare
                    spent = _children_cpu(pids[tree]) - cpu
                    loop = 0.0
                    if args.turn:
                        loop = server.request_times[before + 1] - server.reply_ends[ends]
                    rows[tree].append((first * 1000, whole * 1000, spent * 1000, loop * 1000))
        finally:
            for tree in trees:
                python = tree / ".venv" / "bin" / "python"
                subprocess.run([str(python), "-c", STOP], env=envs[tree], cwd=homes[tree])
    heads = f"{'first request':>14} {'whole':>8} {'child CPU':>10} {'tool->next':>11}"
    print(f"{'checkout':<40} {heads}")
    for tree in trees:
        first, whole, spent, loop = (
            statistics.median(column) for column in zip(*rows[tree], strict=True)
        )
        print(f"{tree!s:<40} {first:>12.0f}ms {whole:>6.0f}ms {spent:>8.0f}ms {loop:>9.1f}ms")
    if args.turn:
        for tree in trees:
            each = " ".join(f"{row[3]:.0f}" for row in rows[tree])
            print(f"tool->next, each run, {tree}: {each}")


if __name__ == "__main__":
    main()
