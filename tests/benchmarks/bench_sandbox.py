"""The cost of the sandbox per command: the bash tool running `true` and a 100-file `pytest`,
unboxed (`off`) and in the box (`workspace`), alternating.

Run: `python tests/benchmarks/bench_sandbox.py [--runs N] [--files N]`

Makes a project of `--files` test files (default 100, one test each) in a temporary folder, then
runs each command `--runs` times (default 20 for `true`, 5 for pytest) through the bash tool's
own `execute`, as the agent does, once with the sandbox off and once in `workspace` mode (on
each run). Prints each command's medians in milliseconds and the box's cost. Goal: under 30 ms
per command. Needs bubblewrap (`bwrap`).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from workbench.agent.tools.bash import execute
from workbench.sandbox import SandboxPolicy
from workbench.sandbox.detect import bwrap_problem
from workbench.tool import ToolContext


def make_project(root: Path, files: int) -> None:
    (root / ".git").mkdir(parents=True)  # a project root, as `find_project_root` sees one
    tests = root / "tests"
    tests.mkdir()
    for n in range(files):
        (tests / f"test_{n}.py").write_text(f"def test_{n}():\n    assert {n} == {n}\n")


async def timed(command: str, context: ToolContext) -> float:
    start = time.perf_counter()
    result = await execute({"command": command}, context)
    elapsed = (time.perf_counter() - start) * 1000
    if result.is_error:
        raise SystemExit(f"{command!r} failed:\n{result.text}")
    return elapsed


async def measure(root: Path, command: str, runs: int) -> tuple[float, float]:
    off = ToolContext(root, sandbox=SandboxPolicy(mode="off"))
    boxed = ToolContext(root, sandbox=SandboxPolicy(mode="workspace"))
    await timed(command, off)  # warm the file cache
    await timed(command, boxed)
    plain, inside = [], []
    for _ in range(runs):
        plain.append(await timed(command, off))
        inside.append(await timed(command, boxed))
    return statistics.median(plain), statistics.median(inside)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=0, help="runs per command (default 20/5)")
    parser.add_argument("--files", type=int, default=100, help="test files for pytest")
    args = parser.parse_args()
    problem = bwrap_problem()
    if problem:
        print(f"cannot measure: {problem}", file=sys.stderr)
        return 1
    root = Path(tempfile.mkdtemp(prefix="bench-sandbox-"))
    try:
        make_project(root, args.files)
        pytest = f"{sys.executable} -m pytest -q -p no:cacheprovider tests"
        print(f"{'command':<28} {'off ms':>9} {'boxed ms':>9} {'cost ms':>9}")
        for name, command, runs in (
            ("true", "true", args.runs or 20),
            (f"pytest ({args.files} files)", pytest, args.runs or 5),
        ):
            plain, inside = asyncio.run(measure(root, command, runs))
            print(f"{name:<28} {plain:>9.1f} {inside:>9.1f} {inside - plain:>9.1f}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
