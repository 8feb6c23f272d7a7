"""`workbench fork NAME` as a whole process against `git worktree add`, on a big repository.

Run: `python tests/benchmarks/bench_fork.py [--files N] [--runs N]`

Makes a git repository of `--files` files (default 3,000) with one commit, opens a session in it
(`workbench -p` with the offline demo model), then alternates `workbench fork fN` (a process of
its own, as a user runs it: the fork is recorded in the session and gets its own worktree) with
`git worktree add -b gN` of the same commit. Goal: the fork under 300 ms and within 2x of git.
Prints each pair and the medians, in milliseconds, cold (`WORKBENCH_WARM_START=0`).
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

WORKBENCH = Path(sys.executable).with_name("workbench")


def make_repository(root: Path, files: int) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for n in range(files):
        folder = root / f"d{n // 100}"
        folder.mkdir(exist_ok=True)
        (folder / f"f{n}.txt").write_text(f"file {n}\n")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    identity = ["-c", "user.name=bench", "-c", "user.email=bench@example.com"]
    subprocess.run(["git", *identity, "commit", "-qm", "files"], cwd=root, check=True)


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, check=True, capture_output=True)
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=3000, help="files in the repository")
    parser.add_argument("--runs", type=int, default=7, help="forks to time (default: 7)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "project"
        make_repository(root, args.files)
        env = {**os.environ, "HOME": folder, "WORKBENCH_WARM_START": "0"}
        env.pop("PI_CODING_AGENT_DIR", None)
        subprocess.run(
            [str(WORKBENCH), "-p", "hello", "--model", "demo"],
            cwd=root,
            env=env,
            check=True,
            capture_output=True,
        )
        forks: list[float] = []
        adds: list[float] = []
        print(f"{'run':>4}  {'workbench fork':>15}  {'git worktree add':>17}")
        for run in range(args.runs):
            forks.append(timed([str(WORKBENCH), "fork", f"f{run}"], root, env))
            add = ["git", "worktree", "add", "-q", "-b", f"g{run}", f"{folder}/g{run}", "HEAD"]
            adds.append(timed(add, root, env))
            print(f"{run + 1:>4}  {forks[-1]:>13.0f}ms  {adds[-1]:>15.0f}ms")
        fork, add = statistics.median(forks), statistics.median(adds)
        print(f"{'med':>4}  {fork:>13.0f}ms  {add:>15.0f}ms  ({fork / add:.1f}x)")


if __name__ == "__main__":
    main()
