"""Forks: a conversation branch with its own worktree; the parent's files are never touched."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support.session_entries import assistant, git, run, snapshot, user

from workbench.errors import UsageError
from workbench.sessions.session import Session


def test_a_fork_gets_a_worktree_on_its_own_project_branch(project: Path) -> None:
    with Session.create(project) as session:
        run(session.store.append("user", user("try a template")))
        at = run(session.store.append("assistant", assistant("ok"))).id
        result = run(session.fork("template"))
        workspace = session.workspace()
        session_id = session.id

    assert result.fork_entry == at and result.parent == "main"
    assert workspace == Path(result.worktree or "")
    assert workspace.is_relative_to(project / ".git")
    assert (workspace / "src" / "app.py").read_text() == "print('v1')\n"
    assert git(workspace, "rev-parse", "--abbrev-ref", "HEAD") == f"wb/{session_id}/template"
    assert git(workspace, "rev-parse", "HEAD") == git(project, "rev-parse", "HEAD")
    assert git(project, "status", "--porcelain") == ""
    assert git(project, "rev-parse", "--abbrev-ref", "HEAD") == "main"


def test_the_parents_uncommitted_work_stays_put_and_is_reported(project: Path) -> None:
    (project / "README.md").write_text("half-done edit\n")
    (project / "draft.txt").write_text("new, untracked\n")
    git(project, "add", "draft.txt")
    before = snapshot(project)
    with Session.create(project) as session:
        run(session.store.append("user", user("hello")))
        result = run(session.fork("clean-start"))
        workspace = session.workspace()
        session_id = session.id

    after = snapshot(project)
    assert after.pop("branches") == f"* main\n+ wb/{session_id}/clean-start"
    before.pop("branches")
    assert after == before
    assert result.left_behind == ["README.md", "draft.txt"]
    assert "2 uncommitted changes in main stay there" in result.render_text()
    assert (workspace / "README.md").read_text() == "hello\n"
    assert not (workspace / "draft.txt").exists()


def test_a_fork_from_an_old_entry_continues_from_there(project: Path) -> None:
    with Session.create(project) as session:
        first = run(session.store.append("user", user("first"))).id
        run(session.store.append("assistant", assistant("one")))
        last = run(session.store.append("user", user("second"))).id
        result = run(session.fork("retry", at=first[:7]))
        assert [e.id for e in session.store.path()] == [first]
        entry = run(session.store.append("user", user("first, asked differently")))
        assert session.store.branch == "retry"
        assert session.store.head("main") == last

    assert (result.parent, result.fork_entry) == ("main", first)
    assert entry.parent == first


def test_bad_or_taken_fork_names_are_refused_before_anything_is_made(project: Path) -> None:
    with Session.create(project) as session:
        run(session.store.append("user", user("hello")))
        run(session.fork("idea"))
        with pytest.raises(UsageError, match="already exists"):
            run(session.fork("idea"))
        with pytest.raises(UsageError, match="invalid branch name"):
            run(session.fork("has space"))
        with pytest.raises(UsageError, match="no entry"):
            run(session.fork("other", at="0000000"))
        assert sorted(session.store.state.branches) == ["idea", "main"]
    assert git(project, "branch", "--list", "wb/*", "--format=%(refname:short)").count("\n") == 0


def test_a_missing_worktree_is_recreated_on_its_branch(project: Path) -> None:
    with Session.create(project) as session:
        run(session.store.append("user", user("hello")))
        run(session.fork("idea"))
        workspace = session.workspace()
        (workspace / "new.txt").write_text("work\n")
        run(session.commit("add new.txt"))
        session_id = session.id
    shutil.rmtree(workspace)
    with Session.open(project, session_id) as reopened:
        again = reopened.workspace()
    assert again == workspace
    assert (again / "new.txt").read_text() == "work\n"


def test_in_a_project_without_git_a_fork_is_a_conversation_branch_only(tmp_path: Path) -> None:
    project = tmp_path / "plain"
    project.mkdir()
    with Session.create(project) as session:
        run(session.store.append("user", user("hello")))
        result = run(session.fork("idea"))
        assert session.workspace() == project
    assert result.worktree is None
    assert result.note == "no worktree: the project is not a git repository"
