"""Benchmark of the git-backed conversation tree (a script; not part of the test run).

    python tests/benchmarks/bench_sessions.py [--quick]

Measures, on real repositories in a temporary directory:
- append cost at entry 10, 1,000 and 10,000 (goal: flat, median under 15 ms);
- opening a session whose branch has 10,000 entries (goal: under 0.5 s);
- fork, status, commit and merge on a 1,000-entry conversation in a 3,000-file project (goal: each
  under 300 ms);
- a fork through `Workbench` (the worktree is checked out in the background): until `fork`
  returns, and until the worktree is ready for the first run;
- the file snapshots taken around tool calls in a 2,000-file project: the session's first (goal:
  close to a later one, not a copy of every file), then one with nothing changed and one with
  a file changed (wall time, and the git processes' CPU time, steadier on a loaded machine);
- the two ways of writing an entry that were weighed (git's own commands per append, which
  workbench uses, against a long-lived `update-ref --stdin` plus Python-side object writes).
Timings on a shared machine are noisy; every figure is a median of several runs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from io import BytesIO
from pathlib import Path

from workbench.messages import Message
from workbench.sessions.session import Session
from workbench.sessions.store.entries import encode_entry
from workbench.sessions.store.gitcmd import ZERO_OID, GitRunner
from workbench.sessions.store.identity import Identity
from workbench.sessions.store.refs import EMPTY_TREE

TEXT = "A realistic reply of a few hundred characters, like a short answer with some code. " * 8


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


def make_project(root: Path, files: int) -> Path:
    root.mkdir(parents=True)
    git(root, "init", "--quiet", "--initial-branch=main")
    git(root, "config", "user.name", "Bench")
    git(root, "config", "user.email", "bench@example.com")
    for n in range(files):
        path = root / f"pkg{n % 30}" / f"module_{n}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"VALUE = {n}\n" + "# filler line\n" * 20)
    git(root, "add", "--all")
    git(root, "commit", "--quiet", "-m", "initial")
    return root


def median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:7.2f} ms"


def timed(job: Callable[[], object]) -> float:
    start = time.perf_counter()
    job()
    return time.perf_counter() - start


def bench_appends(root: Path, depth: int, rounds: int) -> dict[int, list[float]]:
    """Append cost at depth 10, 1,000 and `depth`, measured in turns within one time window.

    The conversation is filled to `depth` entries, branches are started at entries 10 and
    1,000, then appends go to the three heads in rotation: noise from other processes hits all
    three alike, so a difference would come from the depth itself.
    """
    project = make_project(root / "append", files=3)
    session = Session.create(project)
    store = session.store
    ids: list[str] = []
    fill_start = time.perf_counter()
    for n in range(depth):
        role = "assistant" if n % 2 else "user"
        ids.append(store.append_now(role, Message(role=role, text=f"{n} {TEXT}").to_dict()).id)
    fill = time.perf_counter() - fill_start
    print(f"filled {depth} entries in {fill:.1f} s ({fill / depth * 1000:.2f} ms per append)")
    marks = {10: "at-10", 1_000: "at-1000", depth: "main"}
    for mark, name in marks.items():
        if name != "main":
            store.add_branch(name, "main", ids[mark - 1], worktree=None)
    samples: dict[int, list[float]] = {mark: [] for mark in marks}
    payload = Message(role="user", text=TEXT).to_dict()
    for _ in range(rounds):
        for mark, name in marks.items():
            samples[mark].append(timed(lambda n=name: store.append_to_branch(n, "user", payload)))
    store.move_to_branch("main")
    session_id = session.id
    session.close()
    opens = [timed(lambda: Session.open(project, session_id).close()) for _ in range(5)]
    print(f"open a session on its {depth + rounds}-entry branch: median {median_ms(opens)}")
    with Session.open(project, session_id, readonly=True) as reader:
        trees = [timed(lambda: asyncio.run(reader.tree())) for _ in range(3)]
    print(f"tree of the whole session ({depth + 3 * rounds} entries): median {median_ms(trees)}")
    return samples


def bench_file_commands(root: Path, entries: int, files: int, rounds: int) -> None:
    project = make_project(root / "files", files=files)
    session = Session.create(project)

    async def fill() -> None:
        for n in range(entries):
            role = "assistant" if n % 2 else "user"
            await session.store.append(role, Message(role=role, text=f"{n} {TEXT}").to_dict())

    asyncio.run(fill())
    times: dict[str, list[float]] = {"fork": [], "status": [], "commit": [], "merge": []}
    for r in range(rounds):
        asyncio.run(session.switch_branch("main"))
        times["fork"].append(timed(lambda r=r: asyncio.run(session.fork(f"try-{r}"))))
        workspace = session.workspace()
        for n in range(5):
            (workspace / f"pkg{r}" / f"module_{n * 30 + r}.py").write_text(f"VALUE = {r}\n")
        (workspace / f"new_{r}.py").write_text("NEW = True\n")
        times["status"].append(timed(lambda: asyncio.run(session.status())))
        times["commit"].append(timed(lambda r=r: asyncio.run(session.commit(f"round {r}"))))
        times["merge"].append(timed(lambda: asyncio.run(session.merge())))
    session.close()
    print(f"{entries}-entry conversation, {files}-file project, median of {rounds} rounds:")
    for name, samples in times.items():
        print(f"  {name:<7} {median_ms(samples)}   (max {max(samples) * 1000:.0f} ms)")


def bench_workbench_fork(root: Path, files: int, rounds: int) -> None:
    """Workbench.fork returns once the branch is recorded; the checkout follows in the
    background, and a run on the branch waits for it."""
    from workbench.runtime import Workbench, WorkbenchOptions

    project = make_project(root / "runtime-fork", files=files)
    returned, ready = [], []

    async def forks() -> None:
        workbench = await Workbench.open(WorkbenchOptions(cwd=project, model="demo"))
        await workbench.prompt("a first question")
        await workbench.wait_idle()
        for r in range(rounds):
            await workbench.switch_branch("main")
            await workbench.workspace_ready()
            start = time.perf_counter()
            await workbench.fork(f"try-{r}")
            returned.append(time.perf_counter() - start)
            await workbench.workspace_ready()
            ready.append(time.perf_counter() - start)
        await workbench.close()

    asyncio.run(forks())
    print(f"Workbench.fork in a {files}-file project, median of {rounds} rounds:")
    print(f"  returns        {median_ms(returned)}   (max {max(returned) * 1000:.0f} ms)")
    print(f"  worktree ready {median_ms(ready)}   (max {max(ready) * 1000:.0f} ms)")


def snapshot_time(session: Session) -> tuple[float, float]:
    """Wall time and the CPU time of the git processes (a fairer figure on a loaded machine)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = timed(lambda: asyncio.run(session.snapshot()))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


def bench_snapshots(root: Path, files: int, rounds: int) -> None:
    """The first snapshot in a new project's store (its objects packed, as in a clone, and
    loose, as just committed), then an unchanged one and a one-file change; and the first
    snapshot of a second session in the same project."""
    names = (
        "first",
        "first, loose objects",
        "unchanged",
        "one file changed",
        "next session's first",
    )
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
    for r in range(rounds):
        loose = make_project(root / f"snapshots-loose-{r}", files=files)
        session = Session.create(loose)
        times["first, loose objects"].append(snapshot_time(session))
        session.close()
        project = make_project(root / f"snapshots-{r}", files=files)
        git(project, "gc", "--quiet")
        (project / "notes.txt").write_text("an untracked file\n")
        session = Session.create(project)
        times["first"].append(snapshot_time(session))
        times["unchanged"].append(snapshot_time(session))
        (project / "pkg0" / "module_0.py").write_text(f"VALUE = {r}\n")
        times["one file changed"].append(snapshot_time(session))
        session.close()
        second = Session.create(project)
        times["next session's first"].append(snapshot_time(second))
        second.close()
    print(f"file snapshots in a {files}-file project, median of {rounds} projects:")
    for name, samples in times.items():
        wall, cpu = [s[0] for s in samples], [s[1] for s in samples]
        worst = max(wall) * 1000
        print(f"  {name:<22} {median_ms(wall)}, git CPU {median_ms(cpu)}   (max {worst:.0f} ms)")


def bench_write_paths(root: Path, count: int) -> None:
    """The chosen entry write (two git commands) against a long-lived ref-update process."""
    import git as gitpython
    from gitdb import IStream

    repo_dir = root / "paths"
    repo_dir.mkdir()
    git(repo_dir, "init", "--quiet", "--bare")
    runner = GitRunner(repo_dir, Identity("b", "b@x").env())
    runner.run("hash-object", "-t", "tree", "-w", "--stdin", input=b"")
    message = encode_entry("assistant", {"text": TEXT}, "main", time.time())

    chosen, parent = [], None
    for _ in range(count):
        start = time.perf_counter()
        args = ["commit-tree", EMPTY_TREE, *(["-p", parent] if parent else []), "-F", "-"]
        commit = runner.run(*args, input=message)
        runner.run("update-ref", "refs/bench/a", commit, parent or ZERO_OID)
        chosen.append(time.perf_counter() - start)
        parent = commit

    repo = gitpython.Repo(repo_dir)
    updater = subprocess.Popen(
        ["git", "update-ref", "--stdin"], cwd=repo_dir, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert updater.stdin and updater.stdout
    persistent, parent = [], None
    for _ in range(count):
        start = time.perf_counter()
        header = f"tree {EMPTY_TREE}\n" + (f"parent {parent}\n" if parent else "")
        stamp = f"b <b@x> {int(time.time())} +0000"
        raw = f"{header}author {stamp}\ncommitter {stamp}\n\n".encode() + message
        commit = repo.odb.store(IStream(b"commit", len(raw), BytesIO(raw))).hexsha.decode()
        updater.stdin.write(f"start\nupdate refs/bench/b {commit} {parent or ZERO_OID}\ncommit\n")
        updater.stdin.flush()
        assert updater.stdout.readline().strip() == "start: ok"
        assert updater.stdout.readline().strip() == "commit: ok"
        persistent.append(time.perf_counter() - start)
        parent = commit
    updater.stdin.close()
    updater.wait()
    repo.close()
    print(f"entry write paths ({count} appends each):")
    print(f"  commit-tree + update-ref (used)           {median_ms(chosen)}")
    print(f"  odb write + persistent update-ref --stdin {median_ms(persistent)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    parser.add_argument(
        "--only",
        choices=("appends", "files", "workbench-fork", "snapshots", "write-paths"),
        help="one part",
    )
    args = parser.parse_args()
    os.environ.setdefault("GIT_CONFIG_NOSYSTEM", "1")
    depth = 2_000 if args.quick else 10_000
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="wb-bench-") as tmp:
        root = Path(tmp)
        if args.only in (None, "appends"):
            samples = bench_appends(root, depth, rounds=100)
            for mark, values in samples.items():
                print(f"append at entry {mark:>6}: median {median_ms(values)} over {len(values)}")
        if args.only in (None, "files"):
            bench_file_commands(root, entries=1_000, files=3_000, rounds=3 if args.quick else 5)
        if args.only in (None, "workbench-fork"):
            bench_workbench_fork(root, files=3_000, rounds=3 if args.quick else 7)
        if args.only in (None, "snapshots"):
            bench_snapshots(root, files=2_000, rounds=3 if args.quick else 5)
        if args.only in (None, "write-paths"):
            bench_write_paths(root, count=200)


if __name__ == "__main__":
    main()
