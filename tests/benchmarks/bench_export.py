"""Benchmark of sharing a session (a script; not part of the test run).

    python tests/benchmarks/bench_export.py [--entries 1000] [--rounds 3] [--keep DIR]

Builds, in a temporary directory, a bare remote and two clones (Alice and Bob), and a session
whose `exp` branch has `--entries` entries (user questions, replies with tool calls, results,
skill loads, a committed experiment file), then measures as whole `workbench` processes:
- push time: `workbench push` of the whole session to a fresh bare remote;
- pull time: `workbench pull` of it into a fresh clone;
- export: `workbench export` of the branch as HTML and Markdown (the process, and the write
  alone as the command reports it) and the size of each file.
If Chromium is installed (`chromium` or `chromium-browser`), it also times loading the HTML in
headless Chromium and takes a screenshot (with --keep, into DIR). Every figure is the median of
`--rounds` runs; a shared machine is noisy.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def workbench(cwd: Path, *args: str, name: str = "Alice Smith") -> tuple[float, str]:
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT), GIT_AUTHOR_NAME=name, GIT_COMMITTER_NAME=name)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "workbench", *args], cwd=cwd, env=env, capture_output=True, text=True
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"workbench {' '.join(args)} failed: {done.stderr}")
    return elapsed, done.stdout


def clone(remote: Path, target: Path, name: str) -> Path:
    git(target.parent, "clone", "--quiet", str(remote), str(target))
    git(target, "config", "user.name", name)
    git(target, "config", "user.email", f"{name.split()[0].lower()}@example.com")
    return target


def make_remote(root: Path, name: str) -> Path:
    remote = root / name
    git(root, "init", "--quiet", "--bare", "--initial-branch=main", str(remote))
    return remote


def build_session(project: Path, entries: int) -> str:
    """A session whose `exp` branch holds `entries` entries."""
    from workbench.messages import Message, ToolCall, Usage
    from workbench.sessions.session import Session

    session = Session.create(project)
    store = session.store

    async def fill() -> None:
        await store.append("user", Message(role="user", text="speed up the parser").to_dict())
        await session.fork("exp")
        (session.workspace("exp") / "parser.py").write_text("TABLE = {}\n" * 50)
        await session.commit("Table-driven parser", branch="exp")
        n = 0
        while len(store.branch_path("exp")) < entries:
            n += 1
            await store.append(
                "user", Message(role="user", text=f"step {n}: " + "why? " * 30).to_dict()
            )
            call = ToolCall(f"c{n}", "read", {"path": f"src/module_{n}.py"})
            reply = Message(
                role="assistant",
                text=f"Reading module {n}. " + "Some reasoning about it. " * 20,
                tool_calls=[call],
                usage=Usage(input_tokens=2000 + n, output_tokens=150, cost=0.002),
            )
            await store.append("assistant", reply.to_dict())
            load = {"skill": "speed", "layer": "molecule", "verdict": "ok", "how": "read"}
            result = Message(
                role="tool_result",
                text=f"def f{n}(x):\n    return x * {n}  # <b>escaped</b>\n" * 15,
                tool_call_id=call.id,
                tool_name="read",
                details={"skill_load": load} if n % 10 == 0 else {},
            )
            await store.append("tool_result", result.to_dict())

    asyncio.run(fill())
    session_id = session.id
    session.close()
    return session_id


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def chromium_load(browser: str, page: Path, shot: Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", f"--screenshot={shot}",
         "--window-size=1200,1600", page.as_uri()],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    return time.perf_counter() - start


def median(samples: list[float]) -> str:
    return f"{statistics.median(samples):.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="keep the exports (and a screenshot) here")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-export-"))
    try:
        seed_remote = make_remote(root, "seed.git")
        seed = root / "seed"
        git(root, "init", "--quiet", "--initial-branch=main", str(seed))
        (seed / "README.md").write_text("hello\n")
        git(seed, "add", "-A")
        git(seed, "-c", "user.name=Seed", "-c", "user.email=s@example.com", "commit", "-qm", "init")
        git(seed, "push", "--quiet", str(seed_remote), "main")
        alice = clone(seed_remote, root / "alice", "Alice Smith")
        start = time.perf_counter()
        session_id = build_session(alice, args.entries)
        print(f"built a {args.entries}-entry branch in {time.perf_counter() - start:.1f} s")

        pushes, pulls = [], []
        for n in range(args.rounds):
            remote = make_remote(root, f"remote{n}.git")
            git(remote, "fetch", "--quiet", str(seed_remote), "main:main")
            pushes.append(workbench(alice, "push", str(remote))[0])
            bob = clone(remote, root / f"bob{n}", "Bob Jones")
            pulls.append(workbench(bob, "pull", name="Bob Jones")[0])
        print(f"push, {args.entries} entries + 1 file commit, fresh remote: {median(pushes)}")
        print(f"pull of it into a fresh clone:                 {median(pulls)}")

        out = args.keep or root
        out.mkdir(parents=True, exist_ok=True)
        for fmt in ("html", "md"):
            target = out / f"export-{args.entries}.{fmt}"
            runs, writes = [], []
            for _ in range(args.rounds):
                elapsed, said = workbench(
                    alice, "export", "--session", session_id, "--branch", "exp",
                    "--format", fmt, "-o", str(target),
                )  # fmt: skip
                runs.append(elapsed)
                writes.append(float(re.search(r"in ([0-9.]+) s", said).group(1)))  # type: ignore[union-attr]
            size = target.stat().st_size
            print(
                f"export {fmt:4}: {size / 1024:,.0f} KiB; write {statistics.median(writes):.2f} s "
                f"(whole process {median(runs)})"
            )
        browser = chromium()
        if browser is None:
            print("Chromium is not installed (chromium, chromium-browser): no load time")
        else:
            page = out / f"export-{args.entries}.html"
            loads = [chromium_load(browser, page, out / "export.png") for _ in range(args.rounds)]
            print(f"load in headless Chromium (start to screenshot): {median(loads)}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
