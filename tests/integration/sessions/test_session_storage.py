"""Entries are commits in the store repository, readable with plain git; nothing else moves."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support.session_entries import (
    assistant,
    fsck_problems,
    git,
    make_project,
    run,
    snapshot,
    store_dir,
    user,
)

from workbench.errors import WorkbenchError
from workbench.sessions.session import Session
from workbench.sessions.store.refs import EMPTY_TREE


def test_entries_are_commits_on_a_private_ref_and_survive_a_restart(project: Path) -> None:
    session = Session.create(project)
    written = [
        run(session.store.append("user", user("fix the parser"))),
        run(session.store.append("assistant", assistant("I will read parser.py first"))),
        run(session.store.append("user", user("go on"))),
    ]
    session_id = session.id
    session.close()

    ref = f"refs/workbench/{session_id}/branches/main"
    store = store_dir(project)
    assert git(store, "rev-parse", ref) == written[-1].id
    subjects = git(store, "log", "--format=%s", "--reverse", ref).splitlines()
    assert subjects == [
        "user: fix the parser",
        "assistant: I will read parser.py first",
        "user: go on",
    ]
    body = git(store, "log", "-1", "--format=%b", written[1].id)
    assert json.loads(body)["payload"]["text"] == "I will read parser.py first"
    assert git(store, "rev-parse", f"{written[1].id}^") == written[0].id

    reopened = Session.open(project)
    try:
        # appended before the path is first read (it is read when asked for): shown once
        written.append(run(reopened.store.append("user", user("and the lexer"))))
        path = reopened.store.path()
        assert [e.id for e in path] == [e.id for e in written]
        assert [e.payload for e in path] == [e.payload for e in written]
        assert [e.parent for e in path] == [None, *(e.id for e in written[:-1])]
        assert reopened.store.state.name == "fix the parser"
    finally:
        reopened.close()
    assert fsck_problems(project) == []


def test_appends_leave_the_users_branches_index_and_files_alone(project: Path) -> None:
    (project / "README.md").write_text("edited, not committed\n")
    git(project, "add", "README.md")
    (project / "scratch.txt").write_text("untracked\n")
    before = snapshot(project)
    index_bytes = (project / ".git" / "index").read_bytes()

    session = Session.create(project)
    for n in range(20):
        run(session.store.append("user", user(f"message {n}")))
    session.close()

    assert snapshot(project) == before
    assert (project / ".git" / "index").read_bytes() == index_bytes
    assert git(project, "for-each-ref", "--format=%(refname)", "refs/heads") == "refs/heads/main"


def test_large_and_unusual_text_round_trips(project: Path) -> None:
    big = "x" * 300_000  # larger than one command-line argument may be
    odd = "naïve 汉字 \x00 nul and a lone surrogate \ud800 and\nnewlines"
    with Session.create(project) as session:
        first = run(session.store.append("tool_result", {"role": "tool_result", "text": big}))
        second = run(session.store.append("user", user(odd)))
        session_id = session.id
    with Session.open(project, session_id) as reopened:
        path = reopened.store.path()
    assert path[0].id == first.id and path[0].payload["text"] == big
    assert path[1].id == second.id and path[1].payload["text"] == odd
    assert fsck_problems(project) == []


def test_conversation_commits_use_a_fallback_identity_when_git_has_none(tmp_path: Path) -> None:
    project = make_project(tmp_path / "anon", identity=False)
    with Session.create(project) as session:
        entry = run(session.store.append("user", user("hello")))
    assert git(store_dir(project), "log", "-1", "--format=%an <%ae>", entry.id) == (
        "workbench <workbench@localhost>"
    )


def test_conversation_commits_use_the_users_identity_when_configured(project: Path) -> None:
    with Session.create(project) as session:
        entry = run(session.store.append("user", user("hello")))
    assert git(store_dir(project), "log", "-1", "--format=%an <%ae>", entry.id) == (
        "Test User <test@example.com>"
    )


def test_a_project_without_git_keeps_its_conversation_in_pi_sessions_git(tmp_path: Path) -> None:
    project = tmp_path / "plain"
    project.mkdir()
    (project / "notes.txt").write_text("not in git\n")
    with Session.create(project) as session:
        entry = run(session.store.append("user", user("hello")))
        session_id = session.id
    storage = project / ".pi" / "sessions.git"
    assert not (project / ".git").exists()
    assert git(storage, "rev-parse", f"refs/workbench/{session_id}/branches/main") == entry.id
    with Session.open(project) as reopened:
        assert [e.id for e in reopened.store.path()] == [entry.id]
        assert reopened.workspace() == project
    assert fsck_problems(storage) == []


def test_an_append_starts_no_git_process_and_writes_what_git_would(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each git process costs a few milliseconds of every step of a run: an entry's commit is
    written by this process, byte for byte what `git commit-tree` writes, and its ref is moved
    by one `git update-ref --stdin` kept open."""
    session = Session.create(project)
    run(session.store.append("user", user("fix the parser")))
    started: list[list[str]] = []
    real = subprocess.Popen.__init__

    def counted(self: subprocess.Popen[bytes], args: list[str], *rest: Any, **kw: Any) -> None:
        started.append(args)
        real(self, args, *rest, **kw)

    monkeypatch.setattr(subprocess.Popen, "__init__", counted)
    entry = run(session.store.append("assistant", assistant("I will read parser.py first")))
    run(session.store.append("user", user("go on")))
    monkeypatch.undo()
    session.close()
    assert started == []

    store = store_dir(project)
    assert fsck_problems(store) == []
    raw = subprocess.run(
        ["git", "cat-file", "commit", entry.id], cwd=store, capture_output=True, check=True
    ).stdout.decode()
    author = raw.split("\nauthor ", 1)[1].split("\n", 1)[0]
    name, when = author.rsplit(" ", 2)[0], " ".join(author.rsplit(" ", 2)[1:])
    message = raw.split("\n\n", 1)[1]
    again = subprocess.run(
        ["git", "commit-tree", EMPTY_TREE, "-p", entry.parent or "", "-F", "-"],
        cwd=store,
        input=message.encode(),
        capture_output=True,
        check=True,
        env={
            **os.environ,
            "GIT_AUTHOR_NAME": name.split(" <")[0],
            "GIT_AUTHOR_EMAIL": name.split(" <")[1].rstrip(">"),
            "GIT_COMMITTER_NAME": name.split(" <")[0],
            "GIT_COMMITTER_EMAIL": name.split(" <")[1].rstrip(">"),
            "GIT_AUTHOR_DATE": when,
            "GIT_COMMITTER_DATE": when,
        },
    )
    assert again.stdout.decode().strip() == entry.id


def test_a_refused_ref_move_says_what_git_says_and_the_next_append_works(project: Path) -> None:
    """Another process moved the branch: the kept `update-ref` refuses the move as a process of
    its own would, and the next move starts a new one."""
    session = Session.create(project)
    first = run(session.store.append("user", user("fix the parser")))
    ref = f"refs/workbench/{session.id}/branches/main"
    store = store_dir(project)
    moved = git(
        store,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit-tree",
        EMPTY_TREE,
        "-p",
        first.id,
        "-m",
        "x",
    )
    git(store, "update-ref", ref, moved)
    with pytest.raises(WorkbenchError, match=r"git update-ref failed in .*cannot lock ref"):
        run(session.store.append("assistant", assistant("lost")))
    session.store.repo.move_refs([(f"refs/workbench/{session.id}/other", first.id, None)])
    session.close()
    assert git(store, "rev-parse", f"refs/workbench/{session.id}/other") == first.id


def test_a_branch_writers_ref_moves_are_all_made_or_none(project: Path) -> None:
    """A process that writes one branch (a sweep's run) and not the state moves its refs in one
    git transaction, as the state's writer does: a refused move leaves the others unmade."""
    session = Session.create(project)
    first = run(session.store.append("user", user("start")))
    session.store.writes_state = False
    made, refused = (f"refs/workbench/{session.id}/{name}" for name in ("made", "refused"))
    stale = first.id  # `refused` does not exist, so it does not hold this
    with pytest.raises(WorkbenchError, match="update-ref"):
        session.store.save_state([(made, first.id, None), (refused, first.id, stale)])
    session.close()
    store = store_dir(project)
    assert git(store, "for-each-ref", "--format=%(refname)", made, refused) == ""
