"""`workbench fork NAME` as a whole process against `git worktree add`, on a big repository.

Run: `python tests/benchmarks/bench_fork.py [--files N] [--runs N] [--dir DIR] [--packed]
[--warm] [--vs OTHER_CHECKOUT]`

Makes a git repository of `--files` files (default 3,000) with one commit, opens a session in it
(`workbench -p` with the offline demo model), then alternates `workbench fork` (a process of its
own, as a user runs it: the fork is recorded in the session and gets its own worktree) with
`git worktree add -b gN` of the same commit. Goal: the fork under 300 ms and within 2x of git.
Prints each round's wall times and the medians, in milliseconds, cold (`WORKBENCH_WARM_START=0`),
then the median CPU time (user + system of the process and the gits it ran), which other work
on the machine inflates less than wall time.

The package's bytecode is compiled first, as an installed workbench has it (with
`PYTHONDONTWRITEBYTECODE` set, every run would otherwise compile its modules again), into a
cache of the run's own (`PYTHONPYCACHEPREFIX`). `--vs` also times another checkout's
`.venv/bin/workbench fork` in each round, on the same repository and session. `--dir` puts the
repository on another file system (`/dev/shm`: what the fork costs beyond the disk's writes).
`--packed` packs the repository's objects, as a clone leaves them; by default they are loose,
as a first commit leaves them, and git's checkout reads a file for each.
`--warm`: the model goes through litellm and the warm interpreter is on, so each fork starts
one (`start_soon`), which is stopped again, once up, before the next is timed: what starting it
costs the fork.
"""

from __future__ import annotations

import argparse
import os
import resource
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import workbench
from workbench.processes import forkserver

WORKBENCH = Path(sys.executable).with_name("workbench")
WARM_MODEL = "openai/bench-model"
"""A litellm model name: the fork starts the warm interpreter for it (no request is sent)."""
SERVER_UP_S = 300.0


def make_repository(root: Path, files: int, packed: bool) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for n in range(files):
        folder = root / f"d{n // 100}"
        folder.mkdir(exist_ok=True)
        (folder / f"f{n}.txt").write_text(f"file {n}\n")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    identity = ["-c", "user.name=bench", "-c", "user.email=bench@example.com"]
    subprocess.run(["git", *identity, "commit", "-qm", "files"], cwd=root, check=True)
    if packed:
        subprocess.run(["git", "repack", "-adq"], cwd=root, check=True)  # the loose ones go


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system, the process and its children: git's), in ms."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall * 1000, cpu * 1000


SERVER = "import os; from workbench.processes import forkserver as f; "
"""The start of what a checkout's own interpreter runs about its warm server (whose socket's
name depends on that checkout's code)."""


def warm_server(python: Path, env: dict[str, str], code: str) -> str:
    done = subprocess.run(
        [str(python), "-P", "-c", SERVER + code],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


def stop_warm_server(python: Path, env: dict[str, str]) -> None:
    """Wait until the server the fork started accepts connections, then stop it: the next
    command is timed without its imports beside it, and the next fork starts one again."""
    path = Path(warm_server(python, env, "print(f.socket_path(f.WARM_UP, os.environ))"))
    deadline = time.monotonic() + SERVER_UP_S
    while (client := forkserver.connect(path)) is None:
        if time.monotonic() > deadline:
            raise SystemExit(f"the fork started no warm interpreter ({path.with_suffix('.log')})")
        time.sleep(0.1)
    with client:
        pid = struct.unpack("3i", client.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))[0]
    warm_server(python, env, "f.stop(f.WARM_UP, os.environ)")
    while _alive(pid) or not _lock_free(path):  # its teardown would slow what runs next
        time.sleep(0.1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _lock_free(path: Path) -> bool:
    import fcntl

    with open(path.with_suffix(".lock"), "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--files", type=int, default=3000, help="files in the repository")
    parser.add_argument("--runs", type=int, default=7, help="forks to time (default: 7)")
    parser.add_argument("--dir", help="where to make the repository (default: the temp folder)")
    parser.add_argument(
        "--packed", action="store_true", help="the objects in a pack, as a clone leaves them"
    )
    parser.add_argument(
        "--warm", action="store_true", help="a litellm model, the warm interpreter on"
    )
    parser.add_argument("--vs", type=Path, help="another checkout with its own .venv")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        root = Path(folder) / "project"
        make_repository(root, args.files, args.packed)
        env = {**os.environ, "HOME": folder, "WORKBENCH_WARM_START": "0"}
        env.pop("PI_CODING_AGENT_DIR", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = f"{folder}/pycache"
        checkouts = {"workbench fork": (WORKBENCH, Path(workbench.__file__).parent)}
        if args.vs:
            checkouts[f"{args.vs.name} fork"] = (
                args.vs / ".venv/bin/workbench",
                args.vs / "workbench",
            )
        for command, package in checkouts.values():
            python = command.with_name("python")
            subprocess.run([python, "-m", "compileall", "-q", package], env=env, check=True)
        subprocess.run(
            [str(WORKBENCH), "-p", "hello", "--model", "demo"],
            cwd=root,
            env=env,
            check=True,
            capture_output=True,
        )
        if args.warm:
            env.pop("WORKBENCH_WARM_START")
            env["WORKBENCH_MODEL"] = WARM_MODEL
        names = [*checkouts, "git worktree add"]
        times: dict[str, list[float]] = {name: [] for name in names}
        cpus: dict[str, list[float]] = {name: [] for name in names}
        print("run  " + "  ".join(f"{name:>18}" for name in times))
        for run in range(args.runs):
            for n, (name, (command, _)) in enumerate(checkouts.items()):
                wall, cpu = timed([str(command), "fork", f"f{n}-{run}"], root, env)
                times[name].append(wall)
                cpus[name].append(cpu)
                if args.warm:
                    stop_warm_server(command.with_name("python"), env)
            add = ["git", "worktree", "add", "-q", "-b", f"g{run}", f"{folder}/g{run}", "HEAD"]
            wall, cpu = timed(add, root, env)
            times["git worktree add"].append(wall)
            cpus["git worktree add"].append(cpu)
            print(f"{run + 1:>3}  " + "  ".join(f"{t[-1]:>16.0f}ms" for t in times.values()))
        medians = {name: statistics.median(t) for name, t in times.items()}
        git = medians["git worktree add"]
        print("med  " + "  ".join(f"{m:>16.0f}ms" for m in medians.values()))
        print("     " + "  ".join(f"{m / git:>17.1f}x" for m in medians.values()))
        cpu_medians = {name: statistics.median(c) for name, c in cpus.items()}
        print("cpu  " + "  ".join(f"{c:>16.0f}ms" for c in cpu_medians.values()))
        git_cpu = cpu_medians["git worktree add"]
        print("     " + "  ".join(f"{c / git_cpu:>17.1f}x" for c in cpu_medians.values()))


if __name__ == "__main__":
    main()
