"""Status: the conversation since the fork and the files changed in the branch's worktree."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from support.session_entries import assistant, cli, git, run, tool_call, tool_result, user

from workbench.sessions.session import Session


def test_status_counts_the_branch_conversation_skills_tokens_and_files(project: Path) -> None:
    with Session.create(project) as session:
        run(session.store.append("user", user("before the fork")))
        run(session.store.append("assistant", assistant("noted", 500, 20)))
        run(session.fork("exp"))
        append = session.store.append
        run(append("user", user("use the writing skill")))
        run(append("assistant", tool_call("read", path="skills/write/SKILL.md")))
        load = {"skill": "write", "layer": "molecule", "verdict": "ok", "how": "read", "time": 1.0}
        run(append("tool_result", tool_result("read", "# write", skill_load=load)))
        refused = {**load, "skill": "atom-x", "verdict": "violation", "blocked": True}
        run(append("tool_result", tool_result("read", "refused", skill_load=refused)))
        both = [{**load, "skill": "tone", "how": "bash"}, {**load, "skill": "write", "how": "bash"}]
        run(append("tool_result", tool_result("bash", "cat ...", skill_loads=both)))
        run(append("assistant", assistant("done", 1200, 80)))
        workspace = session.workspace()

        (workspace / "src" / "app.py").write_text("print('v2')\n")
        (workspace / "added.txt").write_text("committed addition\n")
        run(session.commit("first step"))
        (workspace / "README.md").unlink()
        (workspace / "later.txt").write_text("not committed yet\n")
        status = run(session.status())

    assert status.branch == "exp" and status.parent_branch == "main"
    assert status.entries_since_fork == 7  # six messages and the checkpoint
    assert status.skills_loaded == ["write", "tone"]
    assert status.tokens == {"input": 1200, "output": 80, "cache_read": 0, "cache_write": 0}
    assert status.commits_ahead == 1
    assert status.dirty is True
    assert [(f.path, f.change, f.uncommitted) for f in status.files] == [
        ("README.md", "deleted", True),
        ("added.txt", "added", False),
        ("later.txt", "added", True),
        ("src/app.py", "modified", False),
    ]


def test_status_json_from_the_command_line(project: Path) -> None:
    with Session.create(project) as session:
        fork_entry = run(session.store.append("user", user("hello"))).id
        run(session.fork("exp"))
        (session.workspace() / "new.txt").write_text("x\n")

    done = cli(project, "status", "exp", "--format", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert {k: data[k] for k in ("branch", "parent_branch", "fork_entry")} == {
        "branch": "exp",
        "parent_branch": "main",
        "fork_entry": fork_entry,
    }
    assert data["entries_since_fork"] == 0 and data["commits_ahead"] == 0
    assert data["dirty"] is True and data["skills_loaded"] == []
    assert data["files"] == [{"path": "new.txt", "change": "added", "uncommitted": True}]

    text = cli(project, "status", "exp")
    assert "added    new.txt (uncommitted)" in text.stdout


def test_status_only_reads_a_missing_worktree_stays_missing(project: Path) -> None:
    with Session.create(project) as session:
        run(session.store.append("user", user("hello")))
        run(session.fork("exp"))
        workspace = session.workspace()
    shutil.rmtree(workspace)
    git(project, "worktree", "prune")

    done = cli(project, "status", "exp")
    assert done.returncode == 0, done.stderr
    assert f"note: its worktree {workspace} is missing" in done.stdout
    assert "(clean)" not in done.stdout and "files:" not in done.stdout
    assert not workspace.exists(), "a read-only command made the worktree again"


def test_status_of_main_shows_the_checkouts_uncommitted_changes(project: Path) -> None:
    (project / "README.md").write_text("edited\n")
    with Session.create(project) as session:
        run(session.store.append("user", user("hello")))
        status = run(session.status())
    assert status.parent_branch is None and status.base is None
    assert [(f.path, f.change) for f in status.files] == [("README.md", "modified")]
    assert git(project, "status", "--porcelain") == " M README.md"


def test_status_without_git_reports_the_conversation_and_says_files_need_git(
    tmp_path: Path,
) -> None:
    project = tmp_path / "plain"
    project.mkdir()
    with Session.create(project) as session:
        run(session.store.append("user", user("hello")))
        run(session.store.append("assistant", assistant("hi", 10, 2)))
        status = run(session.status())
    assert status.entries_since_fork == 2
    assert status.tokens == {"input": 10, "output": 2, "cache_read": 0, "cache_write": 0}
    assert status.files == [] and status.worktree is None
    assert status.notes == ["files are not tracked: the project is not a git repository"]
