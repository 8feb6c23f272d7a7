"""Diff: the branch's file changes since its fork as a unified diff, for reading."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.session_entries import git, make_project, run, snapshot, user

from workbench.errors import UsageError, WorkbenchError
from workbench.sessions.session import Session

FILE_HEADER = re.compile(r"^diff --git a/(.+) b/\1$", re.M)


def test_a_fork_diff_shows_committed_uncommitted_untracked_and_deleted_files(
    tmp_path: Path,
) -> None:
    files = {
        "README.md": "hello\n",
        "src/app.py": "print('v1')\n",
        ".gitignore": "*.log\n",
        "old.txt": "to be deleted\n",
    }
    project = make_project(tmp_path / "project", files)
    with Session.create(project) as session:
        run(session.store.append("user", user("hello")))
        run(session.fork("exp"))
        workspace = session.workspace()
        (workspace / "src" / "app.py").write_text("print('v2')\n")
        run(session.commit("print v2"))
        (workspace / "README.md").write_text("hello\nworld\n")  # uncommitted
        (workspace / "old.txt").unlink()
        (workspace / "notes").mkdir()
        (workspace / "notes" / "new é.md").write_text("# Notes\nfirst line\n")  # untracked
        (workspace / "debug.log").write_text("ignored by .gitignore\n")
        before = snapshot(workspace)
        diff = run(session.diff())
        one = run(session.diff(path="notes/new é.md"))
        folder = run(session.diff(path="notes"))
        unchanged = run(session.diff(path="src/nothing.py"))
        status = run(session.status())
        after = snapshot(workspace)

    assert FILE_HEADER.findall(diff) == ["README.md", "notes/new é.md", "old.txt", "src/app.py"]
    assert sorted(FILE_HEADER.findall(diff)) == sorted(f.path for f in status.files)
    assert "-print('v1')\n+print('v2')" in diff  # committed on the branch
    assert " hello\n+world" in diff  # uncommitted
    assert "deleted file mode 100644" in diff and "-to be deleted" in diff
    assert "new file mode 100644" in diff and "+++ b/notes/new é.md" in diff
    assert "+# Notes\n+first line" in diff
    assert "debug.log" not in diff and ".gitignore" not in diff
    assert FILE_HEADER.findall(one) == ["notes/new é.md"] and one == folder
    assert one in diff
    assert unchanged == ""
    assert after == before, "the diff changed the worktree, its index or its branches"


def test_main_in_the_project_checkout_is_compared_with_its_last_commit(project: Path) -> None:
    (project / "README.md").write_text("edited\n")
    (project / "scratch.txt").write_text("new\n")
    with Session.create(project) as session:
        run(session.store.append("user", user("hello")))
        diff = run(session.diff())
    assert FILE_HEADER.findall(diff) == ["README.md", "scratch.txt"]
    assert "-hello\n+edited" in diff and "+new" in diff
    assert git(project, "status", "--porcelain") == " M README.md\n?? scratch.txt"


def test_a_diff_reads_a_session_that_is_open_elsewhere(project: Path) -> None:
    with Session.create(project) as session:
        run(session.store.append("user", user("hello")))
        run(session.fork("exp"))
        (session.workspace() / "README.md").write_text("changed on exp\n")
        with Session.open(project, readonly=True) as reader:
            diff = run(reader.diff("exp"))
    assert "-hello\n+changed on exp" in diff


def test_a_project_without_git_gets_a_clear_message(tmp_path: Path) -> None:
    project = tmp_path / "plain"
    project.mkdir()
    with Session.create(project) as session:
        run(session.store.append("user", user("hello")))
        with pytest.raises(UsageError) as raised:
            run(session.diff())
    assert raised.value.message == (
        f"diff works on files in git; {project} is not a git repository "
        "(the conversation tree still works)"
    )
    assert raised.value.hint and "git init" in raised.value.hint


def test_a_merged_branch_whose_worktree_was_removed_says_where_its_changes_went(
    project: Path,
) -> None:
    with Session.create(project) as session:
        run(session.store.append("user", user("hello")))
        run(session.fork("exp"))
        (session.workspace() / "README.md").write_text("from exp\n")
        run(session.commit("change the readme"))
        run(session.merge("exp", remove_worktree=True))
        with pytest.raises(WorkbenchError) as raised:
            run(session.diff("exp"))
        unknown = pytest.raises(UsageError, match="no branch 'nope'")
        with unknown:
            run(session.diff("nope"))
    assert "exp was merged and its worktree removed" in raised.value.message
    assert raised.value.hint == "its changes are on main; `git log -p` there shows them"
