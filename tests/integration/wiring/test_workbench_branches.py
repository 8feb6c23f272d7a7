"""Forks with worktrees through Workbench: the tools run there, status / commit / merge bring the
work back, a conflict changes nothing, and the model learns what a merge brought."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.git_project import git, make_project, snapshot
from support.openai_server import OpenAIServer, Reply
from support.opened_workbench import bash, read, script, texts, write
from support.skill_trees import write_tree

from workbench.agent.models.openai_format import to_openai
from workbench.errors import WorkbenchError
from workbench.sessions.workspaces.merge import MergeConflict

DRAFT = (
    '{"subject": "Add the release note", "purpose": "The user asked for a note.", '
    '"changes": ["add NOTE.md"], "result": "NOTE.md exists"}'
)


async def test_a_fork_runs_the_tools_in_its_worktree_not_in_the_users_checkout(
    project: Path, tmp_path: Path, opened
) -> None:
    (project / "README.md").write_text("uncommitted work of the user\n")
    before = snapshot(project)
    turns = [write("NOTE.md", "from the fork\n"), bash("pwd"), {"text": "done"}]
    session = await opened(project, script(tmp_path, turns))

    result = await session.wb.fork("exp")
    assert result.left_behind == ["README.md"]
    assert await session.run("write a note") == "completed"

    worktree = Path(result.worktree)
    assert (worktree / "NOTE.md").read_text() == "from the fork\n"
    assert (worktree / "README.md").read_text() == "hello\n"  # the fork starts from the commit
    pwd = next(m for m in session.wb.messages() if m.tool_name == "bash")
    assert pwd.text.splitlines()[0] == str(worktree)
    assert session.wb.state().cwd == str(worktree)
    assert session.wb.system_suffix == f"Working folder: {worktree}"
    after = snapshot(project)
    assert after.pop("branches") == f"* main\n+ wb/{session.wb.state().session_id}/exp"
    before.pop("branches")
    assert after == before  # the user's HEAD, index, status and files


async def test_status_commit_and_merge_bring_the_work_back_and_the_model_sees_it(
    project: Path, tmp_path: Path, opened
) -> None:
    turns = [write("NOTE.md", "release note\n"), {"text": "written"}, {"text": "on main again"}]
    merge_summary = "## Goal\nWrite a release note\n\n## Progress\n- [x] NOTE.md written"
    session = await opened(project, script(tmp_path, turns, [DRAFT, merge_summary]))
    await session.wb.fork("exp")
    await session.run("write a release note")

    status = await session.wb.status()
    assert [(f.path, f.change, f.uncommitted) for f in status.files] == [("NOTE.md", "added", True)]
    assert status.entries_since_fork == 4

    commit = await session.wb.commit()
    assert commit.message.startswith("Add the release note\n\nPurpose: The user asked")
    assert "Changes:\n- add NOTE.md" in commit.message
    worktree = Path(session.wb.state().cwd)
    assert git(worktree, "log", "-1", "--format=%s") == "Add the release note"
    assert texts(session.wb, "notice")[-1].startswith(
        f"Committed {commit.commit[:10]} on branch exp"
    )

    merged = await session.wb.merge("exp")
    assert merged.into == "main" and merged.files == ["NOTE.md"]
    assert (project / "NOTE.md").read_text() == "release note\n"
    assert session.wb.state().branch == "main"
    assert session.wb.state().cwd == str(project)
    parent_entries = session.wb.current.session.store.path()
    assert parent_entries[-1].type == "merge"
    summary = parent_entries[-1].payload["summary"]  # the model's, plus the files it touched
    assert summary == merge_summary + "\n\n<modified-files>\nNOTE.md\n</modified-files>"
    tree = await session.wb.tree()  # the one-line text of `workbench tree` and its JSON
    merge_entry = next(e for e in tree.to_json()["entries"] if e["type"] == "merge")
    assert merge_entry["text"] == "exp into main: Write a release note"
    assert "merge: exp into main: Write a release note" in tree.render_text()

    seen = to_openai(session.wb.system_prompt, session.wb.messages())[-1]["content"]
    assert seen.startswith("This conversation returned from another branch")
    assert "Branch exp was merged into main." in seen
    assert f"- {commit.commit[:10]} Add the release note" in seen
    assert "NOTE.md written" in seen
    await session.run("what came back?")
    assert texts(session.wb, "assistant")[-1] == "on main again"
    assert [e.reason for e in session.of("tree_update")] == ["fork", "commit", "merge"]


async def test_a_merge_conflict_leaves_everything_as_it_was(
    project: Path, tmp_path: Path, opened
) -> None:
    session = await opened(project, script(tmp_path, [{"text": "ok"}]))
    await session.wb.fork("exp")
    await session.run("change the app")
    worktree = Path(session.wb.state().cwd)
    (worktree / "src" / "app.py").write_text("print('from exp')\n")
    await session.wb.commit("exp changes the app")
    await session.wb.switch_branch("main")
    (project / "src" / "app.py").write_text("print('from main')\n")
    await session.wb.commit("main changes the app too")

    before = snapshot(project), snapshot(worktree)
    messages = [m.id for m in session.wb.messages()]
    tree = (await session.wb.tree()).to_json()
    updates = len(session.of("tree_update"))
    with pytest.raises(MergeConflict) as conflict:
        await session.wb.merge("exp")
    assert conflict.value.files == ["src/app.py"]
    assert (snapshot(project), snapshot(worktree)) == before
    assert [m.id for m in session.wb.messages()] == messages
    assert (await session.wb.tree()).to_json() == tree
    assert len(session.of("tree_update")) == updates
    assert session.wb.state().branch == "main"


async def test_a_skill_read_inside_the_worktree_is_checked_against_the_worktrees_skills(
    project: Path, tmp_path: Path, opened
) -> None:
    atom = ".pi/skills/outline/SKILL.md"
    session = await opened(project, script(tmp_path, [read(atom), {"text": "read it"}]))
    await session.wb.fork("exp")
    await session.run("outline something")

    worktree = Path(session.wb.state().cwd)
    assert session.wb.skill_set.graph.get("outline").path == worktree / atom
    [load] = session.of("skill_load")
    assert (load.skill, load.layer, load.verdict) == ("outline", "atom", "violation")
    assert "write-draft" in load.suggestion
    assert [r.skill for r in session.wb.loading_state().history] == ["outline"]
    assert session.of("skills_reloaded")  # the skill set was read again from the worktree


async def test_a_worktree_that_cannot_be_made_stops_runs_instead_of_running_elsewhere(
    project: Path, tmp_path: Path, opened
) -> None:
    before = snapshot(project)["files"]
    session = await opened(project, script(tmp_path, [write("NOTE.md", "x\n"), {"text": "done"}]))
    session_id = session.wb.state().session_id
    blocker = project / ".git" / "workbench" / "worktrees" / session_id / "exp"
    blocker.parent.mkdir(parents=True)
    blocker.write_text("in the way\n")

    await session.wb.fork("exp")  # the conversation branch exists at once
    with pytest.raises(WorkbenchError, match="already exists"):
        await session.run("write a note")
    [error] = session.of("error")
    assert error.message.startswith("the branch's workspace is not ready")
    assert snapshot(project)["files"] == before
    assert session.wb.messages() == []

    blocker.unlink()
    assert await session.run("write a note") == "completed"
    assert (blocker / "NOTE.md").read_text() == "x\n"
    assert snapshot(project)["files"] == before


async def test_the_offline_demo_drafts_a_commit_message_that_says_what_it_is(
    project: Path, opened
) -> None:
    session = await opened(project, "demo")
    await session.wb.fork("exp")
    worktree = await session.wb.workspace_ready()
    (worktree / "NOTE.md").write_text("a note\n")
    (worktree / "src" / "app.py").write_text("print('v2')\n")
    commit = await session.wb.commit()
    assert commit.message == (
        "Update NOTE.md, app.py\n\n"
        "Purpose: No request was recorded.\n\n"
        "Changes:\n- added NOTE.md\n- modified src/app.py\n\n"
        "Result: (offline demo) drafted from the file list; nothing was verified.\n"
    )
    assert git(worktree, "show", "--stat", "--format=%s", "HEAD").splitlines()[0] == (
        "Update NOTE.md, app.py"
    )


async def test_a_project_below_the_repository_root_works_in_the_same_folder_of_its_fork(
    tmp_path: Path, opened
) -> None:
    repository = tmp_path / "repository"
    make_project(repository, {"README.md": "the repository\n", "app/src/main.py": "print(1)\n"})
    app = repository / "app"
    write_tree(app / ".pi" / "skills")
    git(repository, "add", "--all")
    git(repository, "commit", "--quiet", "-m", "the app's skills")
    session = await opened(app / "src", script(tmp_path, [bash("pwd"), {"text": "here"}]))
    assert session.wb.state().cwd == str(app / "src")

    await session.wb.fork("exp")
    await session.run("where am I?")
    worktree = await session.wb.workspace_ready()
    pwd = next(m for m in session.wb.messages() if m.tool_name == "bash")
    assert pwd.text.splitlines()[0] == str(worktree / "app" / "src")
    skill = session.wb.skill_set.graph.get("publish-report")
    assert skill.path == worktree / "app" / ".pi" / "skills" / "publish-report" / "SKILL.md"


async def test_a_conflicting_merge_asks_the_model_for_nothing(
    project: Path, server: OpenAIServer, opened
) -> None:
    """The conflict is found before the summary is requested: no request reaches the model
    (the real litellm path to the local server); once the merge can happen, one does."""
    server.add(Reply(text="the app is changed"))
    session = await opened(project, "openai/merger", api_base=server.url, api_key="none")
    await session.wb.fork("exp")
    await session.run("change the app")
    worktree = Path(session.wb.state().cwd)
    (worktree / "src" / "app.py").write_text("print('from exp')\n")
    await session.wb.commit("exp changes the app")
    await session.wb.switch_branch("main")
    (project / "src" / "app.py").write_text("print('from main')\n")
    git(project, "commit", "--quiet", "-am", "main changes the app too")

    asked = len(server.requests)
    with pytest.raises(MergeConflict):
        await session.wb.merge("exp")
    assert len(server.requests) == asked

    git(project, "reset", "--quiet", "--hard", "HEAD~1")  # main gives way
    server.add(Reply(text="## Goal\nChange the app"))
    merged = await session.wb.merge("exp")
    assert len(server.requests) == asked + 1
    assert merged.entry.payload["summary"].startswith("## Goal\nChange the app")
