"""Commit: seal a branch's file changes with a purpose/changes/result message and a checkpoint."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.session_entries import assistant, cli, git, make_project, run, user

from workbench.errors import UsageError, WorkbenchError
from workbench.sessions.session import Session


def test_commit_takes_every_change_respects_gitignore_and_records_a_checkpoint(
    project: Path,
) -> None:
    (project / ".gitignore").write_text("*.log\n")
    git(project, "add", ".gitignore")
    git(project, "commit", "--quiet", "-m", "ignore logs")
    with Session.create(project) as session:
        run(session.store.append("user", user("change the app")))
        run(session.fork("exp"))
        workspace = session.workspace()
        (workspace / "src" / "app.py").write_text("print('v2')\n")
        (workspace / "notes" / "plan.md").parent.mkdir()
        (workspace / "notes" / "plan.md").write_text("plan\n")
        (workspace / "debug.log").write_text("ignored\n")
        result = run(session.commit("Print v2\n\nPurpose: show the new version.\n"))
        checkpoint = session.store.path()[-1]

    assert result.commit == git(workspace, "rev-parse", "HEAD")
    assert git(workspace, "show", "--name-only", "--format=", "HEAD").splitlines() == [
        "notes/plan.md",
        "src/app.py",
    ]
    assert git(workspace, "log", "-1", "--format=%B").startswith("Print v2\n\nPurpose:")
    assert git(workspace, "log", "-1", "--format=%an") == "Test User"
    assert git(workspace, "status", "--porcelain", "--untracked-files=all") == ""
    assert (workspace / "debug.log").exists()
    assert checkpoint.type == "checkpoint" and checkpoint.id == result.checkpoint.id
    assert checkpoint.payload["commit"] == result.commit
    assert checkpoint.payload["files"] == ["notes/plan.md", "src/app.py"]
    assert git(project, "log", "-1", "--format=%s") == "ignore logs"


def test_nothing_to_commit_is_a_message_not_an_error(project: Path) -> None:
    with Session.create(project) as session:
        run(session.store.append("user", user("hello")))
        run(session.fork("exp"))
        session_id = session.id
        result = run(session.commit())
        assert result.commit is None and result.checkpoint is None
        assert len(session.store.path()) == 1
    done = cli(project, "commit", "-m", "nothing", "--session", session_id)
    assert done.returncode == 0
    assert done.stdout.strip() == "nothing to commit on exp: its worktree has no changes"


def test_without_a_message_the_sessions_model_drafts_it(project: Path) -> None:
    """No -m and no model configured: the offline demo model drafts purpose / changes / result
    from the conversation and the changed files, and the commit is recorded as a checkpoint."""
    with Session.create(project) as session:
        run(session.store.append("user", user("tidy the readme")))
        (project / "README.md").write_text("changed\n")
    done = cli(project, "commit")
    assert done.returncode == 0, done.stderr
    message = git(project, "log", "-1", "--format=%B")
    assert message.startswith("Update README.md")
    assert "Purpose: Asked for: tidy the readme" in message
    assert "- modified README.md" in message
    assert git(project, "status", "--porcelain") == ""
    with Session.open(project, readonly=True) as session:
        assert session.store.path()[-1].type == "checkpoint"


def test_the_model_drafts_from_the_conversation_since_the_last_checkpoint(project: Path) -> None:
    prompts: list[str] = []

    async def draft(prompt: str) -> str:
        prompts.append(prompt)
        return json.dumps(
            {
                "subject": "Switch the output to a fixed template",
                "purpose": "Free-form output was hard to scan.",
                "changes": ["Add template.md", "Render replies through it"],
                "result": "Replies follow the template.",
            }
        )

    with Session.create(project) as session:
        run(session.store.append("user", user("first task: rename things")))
        (project / "a.txt").write_text("a\n")
        run(session.commit("rename things"))
        run(session.store.append("user", user("now use a fixed template for output")))
        run(session.store.append("assistant", assistant("I added template.md")))
        (project / "template.md").write_text("# {title}\n")
        result = run(session.commit(draft=draft))

    assert "now use a fixed template for output" in prompts[0]
    assert "I added template.md" in prompts[0]
    assert "first task" not in prompts[0]
    assert "added: template.md" in prompts[0]
    assert result.message == (
        "Switch the output to a fixed template\n\n"
        "Purpose: Free-form output was hard to scan.\n\n"
        "Changes:\n- Add template.md\n- Render replies through it\n\n"
        "Result: Replies follow the template.\n"
    )
    assert git(project, "log", "-1", "--format=%B").strip() == result.message.strip()


def test_committing_without_a_git_identity_fails_clearly_and_changes_nothing(
    tmp_path: Path,
) -> None:
    project = make_project(tmp_path / "anon", identity=False)
    (project / "README.md").write_text("changed\n")
    with Session.create(project) as session:
        run(session.store.append("user", user("hello")))
        with pytest.raises(WorkbenchError, match="git has no identity") as caught:
            run(session.commit("change"))
        assert "git config --global user.name" in (caught.value.hint or "")
        assert [e.type for e in session.store.path()] == ["user"]
    assert git(project, "status", "--porcelain") == " M README.md"
    assert git(project, "rev-list", "--count", "HEAD") == "1"


def test_a_commit_refused_by_a_hook_leaves_the_staging_as_it_was(project: Path) -> None:
    hook = project / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho 'lint: trailing space in app.py' >&2\nexit 1\n")
    hook.chmod(0o755)
    (project / "README.md").write_text("staged by me\n")
    git(project, "add", "README.md")
    (project / "src" / "app.py").write_text("print('not staged') \n")
    (project / "new.txt").write_text("untracked\n")
    before = git(project, "status", "--porcelain", "--untracked-files=all")
    with Session.create(project) as session:
        run(session.store.append("user", user("hello")))
        with pytest.raises(WorkbenchError, match=r"lint: trailing space in app\.py"):
            run(session.commit("tidy"))
        assert [e.type for e in session.store.path()] == ["user"]
    assert git(project, "status", "--porcelain", "--untracked-files=all") == before
    assert git(project, "rev-list", "--count", "HEAD") == "1"


def test_commit_in_a_project_without_git_says_what_it_needs(tmp_path: Path) -> None:
    project = tmp_path / "plain"
    project.mkdir()
    with Session.create(project) as session:
        run(session.store.append("user", user("hello")))
        with pytest.raises(UsageError, match="not a git repository"):
            run(session.commit("x"))
    done = cli(project, "commit", "-m", "x")
    assert done.returncode == 2
    assert "commit works on files in git" in done.stderr
