"""SIGKILL at any point loses no finished entry; `git fsck` stays clean; the user's files stay."""

from __future__ import annotations

import os
import signal
import stat
import time
from pathlib import Path

from support.session_entries import assistant, fsck_problems, git, run, snapshot, spawn_python, user

from workbench.sessions.session import Session
from workbench.sessions.store.state import PendingMerge

STREAMER = """
import asyncio, sys
from pathlib import Path
from workbench.messages import Message
from workbench.sessions.session import Session

async def main():
    session = Session.open(Path(sys.argv[1]), sys.argv[2])
    n = 0
    while True:
        role = "assistant" if n % 2 else "tool_result"
        message = Message(role=role, text=f"part {n} " * 40)
        entry = await session.store.append(role, message.to_dict())
        print(entry.id, flush=True)
        n += 1

asyncio.run(main())
"""

MERGER = """
import asyncio, sys
from pathlib import Path
from workbench.sessions.session import Session

session = Session.open(Path(sys.argv[1]), sys.argv[2])
print(asyncio.run(session.merge("exp")).render_text(), flush=True)
"""

# Holds `git merge` inside its ref update of the user's branch, after the files are checked out.
SLOW_REF_HOOK = """#!/bin/sh
if [ "$1" = prepared ] && grep -q ' refs/heads/main$'; then
  touch "$WB_TEST_MARKER"
  sleep 2
fi
exit 0
"""


def test_sigkill_during_a_stream_of_appends_loses_no_finished_entry(project: Path) -> None:
    (project / "README.md").write_text("uncommitted user work\n")
    before = snapshot(project)
    with Session.create(project) as session:
        run(session.store.append("user", user("stream a long answer")))
        session_id = session.id

    child = spawn_python(STREAMER, str(project), session_id)
    assert child.stdout is not None
    finished = [child.stdout.readline().strip() for _ in range(40)]
    os.kill(child.pid, signal.SIGKILL)
    rest, _ = child.communicate()
    finished += [line.strip() for line in rest.splitlines() if line.strip()]

    with Session.open(project, session_id) as reopened:
        path_ids = [e.id for e in reopened.store.path()]
    assert len(finished) >= 40
    assert path_ids[1 : len(finished) + 1] == finished
    assert len(path_ids) - 1 - len(finished) in (0, 1)  # at most the append in flight
    assert fsck_problems(project) == []
    assert snapshot(project) == before


def test_sigkill_during_a_merge_is_settled_on_the_next_open(project: Path, tmp_path: Path) -> None:
    with Session.create(project) as session:
        run(session.store.append("user", user("try v2")))
        run(session.fork("exp"))
        run(session.store.append("assistant", assistant("v2 works")))
        (session.workspace() / "src" / "app.py").write_text("print('v2')\n")
        run(session.commit("print v2"))
        session_id = session.id
    (project / "README.md").write_text("the user's uncommitted edit\n")
    hook = project / ".git" / "hooks" / "reference-transaction"
    hook.write_text(SLOW_REF_HOOK)
    hook.chmod(hook.stat().st_mode | stat.S_IEXEC)
    marker = tmp_path / "in-merge"
    os.environ["WB_TEST_MARKER"] = str(marker)
    try:
        child = spawn_python(MERGER, str(project), session_id)
        deadline = time.monotonic() + 30
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert marker.exists(), "git merge never reached the ref update"
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    finally:
        del os.environ["WB_TEST_MARKER"]
    deadline = time.monotonic() + 30
    while git(project, "rev-list", "--count", "HEAD") == "1" and time.monotonic() < deadline:
        time.sleep(0.05)  # git, in a session of its own, finishes what it started
    merge_commit = git(project, "rev-parse", "HEAD")  # read once it moved, not just before
    hook.unlink()

    with Session.open(project, session_id) as reopened:
        notices = reopened.notices
        head = reopened.store.path()[-1]
        branch = reopened.store.branch
    assert notices[0].startswith(f"took over session {session_id} from pid {child.pid}")
    assert notices[1:] == ["finished recording the interrupted merge of exp into main"]
    assert head.type == "merge" and head.payload["commit"] == merge_commit
    assert branch == "main"
    assert git(project, "log", "-1", "--format=%P", "HEAD").count(" ") == 1
    assert (project / "src" / "app.py").read_text() == "print('v2')\n"
    assert (project / "README.md").read_text() == "the user's uncommitted edit\n"
    assert not (project / ".git" / "index.lock").exists()
    assert fsck_problems(project) == []


def test_a_merge_killed_before_git_ran_is_dropped_with_a_notice(project: Path) -> None:
    """The state a kill leaves between saving the intent and starting `git merge`."""
    with Session.create(project) as session:
        run(session.store.append("user", user("hello")))
        run(session.fork("exp"))
        never_checked_out = git(project, "commit-tree", "HEAD^{tree}", "-p", "HEAD", "-m", "x")
        session.store.state.pending_merge = PendingMerge(
            "exp", "main", never_checked_out, str(project), {"branch": "exp", "into": "main"}
        )
        session.store.save_state()
        session_id = session.id
    before = snapshot(project)
    with Session.open(project, session_id) as reopened:
        assert reopened.notices == [
            "an interrupted merge of exp into main had not changed any file; run the merge again"
        ]
        assert reopened.store.state.pending_merge is None
        assert [e.type for e in reopened.store.all_entries()] == ["user"]
    assert snapshot(project) == before
