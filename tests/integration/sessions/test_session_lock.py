"""One writer per session: a second real process is told who holds it; a dead holder is replaced."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from support.session_entries import cli, run, spawn_python, user

from workbench.sessions.session import Session

HOLDER = """
import sys, time
from pathlib import Path
from workbench.sessions.session import Session
session = Session.open(Path(sys.argv[1]), sys.argv[2])
print("holding", flush=True)
time.sleep(60)
"""


def _session_with_an_entry(project: Path) -> str:
    with Session.create(project) as session:
        run(session.store.append("user", user("hello")))
        return session.id


def test_a_second_process_is_told_which_process_holds_the_session(project: Path) -> None:
    session_id = _session_with_an_entry(project)
    holder = spawn_python(HOLDER, str(project), session_id)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        done = cli(project, "fork", "idea", "--session", session_id)
        assert done.returncode == 1
        assert f"session {session_id} is open in another process: pid {holder.pid}" in done.stderr
        assert "-c " in done.stderr  # the holder's command line
        assert "open since" in done.stderr

        readonly = cli(project, "tree", "--session", session_id)
        assert readonly.returncode == 0 and "user: hello" in readonly.stdout
    finally:
        holder.kill()
        holder.wait()


def test_a_lock_left_by_a_killed_process_is_taken_over_with_a_notice(project: Path) -> None:
    session_id = _session_with_an_entry(project)
    holder = spawn_python(HOLDER, str(project), session_id)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()

    done = cli(project, "fork", "idea", "--session", session_id)
    assert done.returncode == 0, done.stderr
    assert f"took over session {session_id} from pid {holder.pid}" in done.stderr
    assert "forked idea from main" in done.stdout

    again = cli(project, "label", "checked", "--session", session_id)
    assert again.returncode == 0
    assert "took over" not in again.stderr  # a clean close leaves no stale record
