"""Benchmark of the credential check of a push and an export (a script; not part of the test run).

    python tests/benchmarks/bench_secret_scan.py [--entries 1000] [--commits 1000] [--rounds 5]

Builds, in a temporary directory, a project with a session whose `exp` branch has `--entries`
entries (as `bench_export.py` builds it) and `--commits` project commits no remote has, then
times, in this process, each part of the check:
- the entries: every field of every entry, decoded (`scan_entries`), beside the old reading of
  the JSON spelling of the same messages, for comparison;
- the export's check of the same branch (`check_export`: entries, name and diff);
- `--redact` with a key in the first entry, so that every entry is copied (`redacted_copy`);
- the commits the remote does not have: messages and the files they change (`scan_commits`).
Every figure is the median of `--rounds` runs; a shared machine is noisy.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from bench_export import build_session, git  # this folder: run as a script

T = TypeVar("T")


def timed(action: Callable[[], T], rounds: int) -> tuple[float, T]:
    """The median time of `rounds` runs, and the last result."""
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        result = action()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples), result


def add_commits(project: Path, commits: int) -> None:
    """`commits` commits on main, each changing a 40-line file, written by git fast-import."""
    head = git(project, "rev-parse", "HEAD")
    stream = []
    for n in range(commits):
        message = f"step {n}: tune the table\n\nwhy: it was slow\n".encode()
        content = "".join(f"value_{i} = {n * i}  # a line of code\n" for i in range(40)).encode()
        stream += [b"commit refs/heads/main", b"committer B <b@example.com> 1700000000 +0000"]
        stream += [b"data %d" % len(message), message]
        stream += [b"from " + head.encode()] if n == 0 else []
        stream += [b"M 100644 inline table.py", b"data %d" % len(content), content]
    subprocess.run(
        ["git", "fast-import", "--quiet"], cwd=project, input=b"\n".join(stream) + b"\n", check=True
    )
    git(project, "reset", "--hard", "--quiet")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--commits", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    from workbench.messages import Message
    from workbench.redaction import SECRET_PATTERNS, find_secrets
    from workbench.sessions.export.credentials import check_export
    from workbench.sessions.session import Session
    from workbench.sessions.share.commit_scan import scan_commits
    from workbench.sessions.share.secret_scan import redacted_copy, scan_entries
    from workbench.sessions.workspaces.diff import branch_diff

    root = Path(tempfile.mkdtemp(prefix="bench-secret-scan-"))
    try:
        project = root / "project"
        git(root, "init", "--quiet", "--initial-branch=main", str(project))
        git(project, "config", "user.name", "Alice Smith")
        git(project, "config", "user.email", "alice@example.com")
        (project / "README.md").write_text("hello\n")
        git(project, "add", "-A")
        git(project, "commit", "-qm", "init")
        add_commits(project, args.commits)
        session_id = build_session(project, args.entries)
        session = Session.open(project, session_id, branch="exp")
        runner = session.location.runner()
        head = session.store.head("exp")
        assert head is not None
        entries = session.store.branch_path("exp")
        formats = len(SECRET_PATTERNS) + 1
        print(f"{formats} credential formats ({len(SECRET_PATTERNS)} with a known shape, and "
              "a random value after a secret's name)")  # fmt: skip

        seconds, found = timed(lambda: scan_entries(runner, [head], []), args.rounds)
        print(f"entries, every field decoded: {seconds:.3f} s for {len(entries)} entries "
              f"({seconds / len(entries) * 1e6:.0f} µs each), {len(found)} found")  # fmt: skip
        messages = runner.run("log", "-z", "--format=%B", head, "--", strip=False).split("\0")
        seconds, _ = timed(lambda: [find_secrets(m) for m in messages], args.rounds)
        print(f"  (the old reading of their JSON spelling: {seconds:.3f} s)")

        diff = branch_diff(session.store, session.workspaces, "exp").text
        name = session.store.state.name
        seconds, _ = timed(lambda: check_export(entries, name, diff, "exp", False), args.rounds)
        print(f"export check of the branch (entries, name, diff): {seconds:.3f} s")

        keyed = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
        session.close()
        with Session.create(project) as other:
            asyncio.run(other.store.append("user", Message(role="user", text=keyed).to_dict()))
            for n in range(args.entries - 1):
                text = f"step {n}: " + "some reasoning. " * 20
                asyncio.run(other.store.append("user", Message(role="user", text=text).to_dict()))
            keyed_head = other.store.head("main")
        assert keyed_head is not None
        seconds, copy = timed(lambda: redacted_copy(runner, [keyed_head]), 1)
        print(f"--redact with a key in the first of {args.entries} entries: {copy.credentials} "
              f"replaced, {len(copy.mapping)} entries copied in {seconds:.2f} s")  # fmt: skip

        tips = {"exp": (git(project, "rev-parse", "HEAD"), None)}
        seconds, scan = timed(lambda: scan_commits(runner, tips, []), args.rounds)
        print(f"commits no remote has: {scan.commits} read in {seconds:.2f} s "
              f"(messages and changed files); {scan.unread_commits} left unread")  # fmt: skip
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
