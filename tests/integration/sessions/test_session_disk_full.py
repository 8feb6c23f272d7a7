"""A full disk loses nothing: a reply received when the disk fills is printed (or kept and
written once there is space again), and a fork that cannot be made records no branch. Run on a
real full file system: a small tmpfs (skipped, with the reason, where mounting is refused)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.openai_server import Reply
from support.session_entries import assistant, cli, make_project, run, user
from support.workbench_process import RpcProcess, workbench_command

from workbench.errors import DiskFull
from workbench.sessions.session import Session

REPLY = "Here is everything I found, kept even though the disk is full."


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip() or done.returncode}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(disk: Path) -> Path:
    """Fill `disk` to the last byte; the file that did it."""
    filler = disk / "filler"
    with filler.open("wb") as handle:
        try:
            while True:
                handle.write(b"\0" * 65536)
                handle.flush()
        except OSError:
            pass
    return filler


def wait_for_request(server, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not server.requests:
        assert time.monotonic() < deadline, "the model was never asked"
        time.sleep(0.02)


def held_reply() -> Reply:
    return Reply(text=REPLY, hold_after=2)


def test_print_mode_prints_the_reply_the_full_disk_could_not_store(small_disk, server):
    project = make_project(small_disk / "project")
    reply = held_reply()
    server.add(reply)
    model = ("--model", "openai/m", "--api-base", server.url, "--api-key", "k")
    child = subprocess.Popen(
        workbench_command("-p", *model, "what is there?"),
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for_request(server)
    filler = fill(small_disk)
    reply.release.set()
    out, err = child.communicate(timeout=30)
    filler.unlink()
    assert child.returncode == 1
    assert out == REPLY + "\n", "what was received is shown, not lost"
    assert "workbench: disk full: could not write to" in err and "df -h" in err


def test_a_kept_reply_is_written_with_the_next_entry_once_there_is_space(small_disk, server):
    project = make_project(small_disk / "project")
    reply = held_reply()
    server.add(reply, Reply(text="second answer"))
    rpc = RpcProcess("--model", "openai/m", "--api-base", server.url, "--api-key", "k", cwd=project)
    try:
        rpc.send(type="prompt", text="first question")
        wait_for_request(server)  # the question is stored; the reply is on its way
        filler = fill(small_disk)
        reply.release.set()
        error = rpc.wait_type("error")
        assert error["message"].startswith("disk full")
        rpc.wait_type("agent_end")
        filler.unlink()
        rpc.send(type="prompt", text="second question")
        rpc.wait_type("agent_end")
        session_id = rpc.header["id"]
    finally:
        rpc.close()
    with Session.open(project, session_id) as session:
        texts = [(e.type, e.payload.get("text")) for e in session.store.path()]
    assert texts == [
        ("user", "first question"),
        ("assistant", REPLY),
        ("user", "second question"),
        ("assistant", "second answer"),
    ]


def test_a_fork_the_disk_cannot_hold_records_no_branch(small_disk) -> None:
    project = make_project(small_disk / "project", {"big.bin": "x" * 1_500_000})
    with Session.create(project) as session:
        run(session.store.append("user", user("try something")))
        run(session.store.append("assistant", assistant("ok")))
        filler = small_disk / "filler"
        free = int(
            subprocess.run(
                ["df", "--output=avail", "-B1", str(small_disk)], capture_output=True, text=True
            ).stdout.split()[-1]
        )
        filler.write_bytes(b"\0" * max(free - 600_000, 0))  # room for entries, not a checkout
        with pytest.raises(DiskFull):
            run(session.fork("exp"))
        assert list(session.store.state.branches) == ["main"]
        assert session.store.branch == "main"
        filler.unlink()
        session_id = session.id
    with Session.open(project, session_id) as reopened:
        assert list(reopened.store.state.branches) == ["main"]


def free_bytes(disk: Path) -> int:
    df = ["df", "--output=avail", "-B1", str(disk)]
    return int(subprocess.run(df, capture_output=True, text=True).stdout.split()[-1])


def test_a_disk_with_no_byte_left_is_a_disk_full_error_for_fork_and_continue(small_disk):
    """At 0 bytes free the first write is the lock file's holder record: the same message as
    a write that fails later (with a few KB free), never a traceback."""
    project = make_project(small_disk / "project")
    assert cli(project, "-p", "--model", "demo", "hello").returncode == 0
    filler = fill(small_disk)
    assert free_bytes(small_disk) == 0
    for args in (("fork", "exp"), ("-p", "-c", "--model", "demo", "again")):
        done = cli(project, *args)
        assert done.returncode == 1, done.stdout
        assert "Traceback" not in done.stderr, done.stderr
        assert done.stderr.startswith("workbench: disk full: could not write to "), done.stderr
        assert "hint: free some space there (df -h " in done.stderr
    filler.unlink()
    assert cli(project, "fork", "exp").returncode == 0, "once there is space, it works"
