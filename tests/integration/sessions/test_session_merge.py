"""Merge: a real git merge into the parent, which is left exactly as it was when it cannot be."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.session_entries import (
    assistant,
    cli,
    fsck_problems,
    git,
    run,
    snapshot,
    store_dir,
    user,
)

from workbench.config import Settings
from workbench.errors import UsageError, WorkbenchError
from workbench.messages import Message
from workbench.sessions.session import Session
from workbench.sessions.workspaces.merge import MergeConflict


def _fork_with_commit(session: Session, name: str, files: dict[str, str]) -> Path:
    run(session.store.append("user", user(f"work on {name}")))
    run(session.fork(name))
    run(session.store.append("user", user(f"change files for {name}")))
    run(session.store.append("assistant", assistant(f"{name} is done")))
    workspace = session.workspace()
    for path, text in files.items():
        (workspace / path).write_text(text)
    run(session.commit(f"{name}: change {', '.join(files)}"))
    return workspace


def test_a_clean_merge_brings_commits_and_a_two_parent_merge_entry_back(project: Path) -> None:
    with Session.create(project) as session:
        workspace = _fork_with_commit(session, "exp", {"src/app.py": "print('v2')\n"})
        branch_head = session.store.head("exp")
        main_head = session.store.head("main")
        result = run(session.merge("exp"))
        position = (session.store.branch, session.store.position_entry())
        session_id = session.id

    merge_commit = git(project, "rev-parse", "HEAD")
    assert result.commit == merge_commit
    assert git(project, "rev-parse", "HEAD^2") == git(workspace, "rev-parse", "HEAD")
    assert (project / "src" / "app.py").read_text() == "print('v2')\n"
    assert git(project, "rev-parse", "--abbrev-ref", "HEAD") == "main"
    assert git(project, "status", "--porcelain") == ""

    entry = result.entry
    assert entry.type == "merge" and entry.branch == "main"
    parents = git(store_dir(project), "log", "-1", "--format=%P", entry.id).split()
    assert parents == [main_head, branch_head]
    assert entry.payload["commit"] == merge_commit
    assert [c["message"] for c in entry.payload["checkpoints"]] == ["exp: change src/app.py"]
    assert "exp is done" in entry.payload["summary"]
    assert "change files for exp" not in str(entry.payload)  # not the transcript
    assert position == ("main", entry.id)
    assert workspace.is_dir()  # kept by default
    log = git(
        store_dir(project),
        "log",
        "--graph",
        "--oneline",
        f"refs/workbench/{session_id}/branches/main",
    )
    assert "merge: exp into main" in log
    assert fsck_problems(project) == []


def test_a_conflict_leaves_the_parent_exactly_as_it_was_and_names_the_files(
    project: Path,
) -> None:
    with Session.create(project) as session:
        _fork_with_commit(session, "exp", {"src/app.py": "print('branch')\n"})
        (project / "src" / "app.py").write_text("print('main')\n")
        git(project, "commit", "--quiet", "-am", "main changes the app too")
        (project / "README.md").write_text("uncommitted in main\n")
        before = snapshot(project)
        entries_before = len(session.store.all_entries())
        workspace = session.workspace("exp")
        with pytest.raises(MergeConflict) as caught:
            run(session.merge("exp"))
        assert len(session.store.all_entries()) == entries_before
        assert session.store.state.pending_merge is None

    assert caught.value.files == ["src/app.py"]
    assert "left exactly as it was" in caught.value.message
    main_commit = git(project, "rev-parse", "HEAD")
    assert caught.value.hint == (
        f"resolve it in the branch: cd {workspace} && git merge {main_commit[:12]}, fix the "
        "files, commit, then merge again"
    )
    assert snapshot(project) == before
    assert not (project / ".git" / "MERGE_HEAD").exists()


def test_a_dirty_parent_keeps_its_uncommitted_work_through_a_merge(project: Path) -> None:
    with Session.create(project) as session:
        _fork_with_commit(session, "exp", {"src/app.py": "print('v2')\n"})
        (project / "README.md").write_text("my unfinished edit\n")
        (project / "staged.txt").write_text("staged\n")
        git(project, "add", "staged.txt")
        (project / "scratch.txt").write_text("untracked\n")
        result = run(session.merge("exp"))

    assert result.files == ["src/app.py"]
    assert (project / "README.md").read_text() == "my unfinished edit\n"
    assert (project / "scratch.txt").read_text() == "untracked\n"
    assert git(project, "status", "--porcelain").splitlines() == [
        " M README.md",
        "A  staged.txt",
        "?? scratch.txt",
    ]


def test_a_dirty_parent_in_the_merges_way_is_refused_untouched(project: Path) -> None:
    with Session.create(project) as session:
        _fork_with_commit(session, "exp", {"src/app.py": "print('v2')\n", "new.txt": "n\n"})
        (project / "src" / "app.py").write_text("my uncommitted edit\n")
        (project / "new.txt").write_text("my untracked file of the same name\n")
        before = snapshot(project)
        with pytest.raises(WorkbenchError, match="files the merge would change") as caught:
            run(session.merge("exp"))
    assert "new.txt, src/app.py" in caught.value.message
    assert snapshot(project) == before


def test_a_branch_with_uncommitted_work_is_not_merged(project: Path) -> None:
    with Session.create(project) as session:
        workspace = _fork_with_commit(session, "exp", {"src/app.py": "print('v2')\n"})
        (workspace / "more.txt").write_text("not committed\n")
        before = snapshot(project)
        with pytest.raises(WorkbenchError, match="exp has uncommitted changes"):
            run(session.merge("exp"))
    assert snapshot(project) == before


def test_the_worktree_is_removed_on_request_or_by_setting(project: Path) -> None:
    with Session.create(project) as session:
        workspace = _fork_with_commit(session, "one", {"one.txt": "1\n"})
        run(session.merge("one", remove_worktree=True))
        session_id = session.id
        assert session.store.record("one").worktree.removed
        status = run(session.status("one"))
        assert status.notes == ["its worktree was removed after it was merged"]
        assert status.files == []
    assert not workspace.exists()
    assert git(project, "branch", "--list", f"wb/{session_id}/one") == ""
    assert (project / "one.txt").read_text() == "1\n"

    (project / ".pi").mkdir()
    (project / ".pi" / "settings.json").write_text(
        '{"sessions": {"remove_worktree_after_merge": true}}'
    )
    with Session.open(project, session_id, settings=Settings.load(project)) as session:
        workspace = _fork_with_commit(session, "two", {"two.txt": "2\n"})
        run(session.merge("two"))
    assert not workspace.exists()


def test_a_worktree_that_cannot_be_removed_is_kept_and_the_merge_still_reported(
    project: Path,
) -> None:
    with Session.create(project) as session:
        workspace = _fork_with_commit(session, "exp", {"src/app.py": "print('v2')\n"})
        git(project, "worktree", "lock", str(workspace), "--reason", "in use")
        result = run(session.merge("exp", remove_worktree=True))
        assert not session.store.record("exp").worktree.removed
    assert result.commit == git(project, "rev-parse", "HEAD")
    assert not result.removed_worktree and workspace.is_dir()
    assert len(result.notes) == 1
    assert result.notes[0].startswith(f"could not remove the worktree {workspace}")
    assert "note: could not remove the worktree" in result.render_text()


def test_merging_a_branch_without_its_own_worktree_merges_the_conversation(
    project: Path,
) -> None:
    with Session.create(project) as session:
        first = run(session.store.append("user", user("first"))).id
        run(session.store.append("assistant", assistant("one")))
        run(session.navigate(first))
        run(session.store.append("user", user("another way")))
        run(session.store.append("assistant", assistant("that worked better")))
        result = run(session.merge("main-1"))
    assert result.commit is None
    assert result.notes == ["no file merge: main-1 works in the worktree of the project checkout"]
    assert result.entry.payload["summary"].endswith("last reply: that worked better")


def test_merge_from_the_command_line_reports_a_conflict_with_exit_1(project: Path) -> None:
    with Session.create(project) as session:
        _fork_with_commit(session, "exp", {"src/app.py": "print('branch')\n"})
        (project / "src" / "app.py").write_text("print('main')\n")
        git(project, "commit", "--quiet", "-am", "main changes the app too")
    done = cli(project, "merge", "exp")
    assert done.returncode == 1
    assert "would conflict in 1 file: src/app.py;" in done.stderr
    assert "hint: resolve it in the branch" in done.stderr


def test_a_branch_with_nothing_of_its_own_has_nothing_to_merge(tmp_path: Path) -> None:
    project = tmp_path / "plain"
    project.mkdir()
    with Session.create(project) as session:
        run(session.store.append("user", user("hello")))
        run(session.fork("empty"))
        with pytest.raises(UsageError, match="nothing to merge: empty has no entries"):
            run(session.merge("empty"))
        assert [e.type for e in session.store.all_entries()] == ["user"]


def test_the_runtime_can_supply_the_merge_summary(project: Path) -> None:
    seen: list[list[str]] = []

    async def summarize(messages: list[Message]) -> str:
        seen.append([m.text for m in messages])
        return "Goal: print v2. Done: app prints v2; checked by hand."

    with Session.create(project) as session:
        _fork_with_commit(session, "exp", {"src/app.py": "print('v2')\n"})
        result = run(session.merge("exp", summarize=summarize))
    assert seen == [["change files for exp", "exp is done"]]
    assert (
        result.entry.payload["summary"] == "Goal: print v2. Done: app prints v2; checked by hand."
    )
    assert "Goal: print v2." in git(project, "log", "-1", "--format=%B")


def test_a_second_merge_of_a_branch_carries_only_what_is_new_since_the_first(
    project: Path,
) -> None:
    seen: list[list[str]] = []

    async def summarize(messages: list[Message]) -> str:
        seen.append([m.text for m in messages])
        return f"summary of {len(messages)} message(s)"

    with Session.create(project) as session:
        workspace = _fork_with_commit(session, "exp", {"src/app.py": "print('v2')\n"})
        first = run(session.merge("exp", summarize=summarize))
        run(session.switch_branch("exp"))
        run(session.store.append("user", user("one more thing on exp")))
        run(session.store.append("assistant", assistant("the notes are written")))
        (workspace / "NOTES.md").write_text("notes\n")
        run(session.commit("exp: add NOTES.md"))
        second = run(session.merge("exp", summarize=summarize))
        run(session.switch_branch("exp"))
        with pytest.raises(UsageError, match="nothing new to merge: main already has every"):
            run(session.merge("exp", summarize=summarize))
        merges = [e for e in session.store.all_entries() if e.type == "merge"]

    assert [c["message"] for c in first.entry.payload["checkpoints"]] == ["exp: change src/app.py"]
    assert [c["message"] for c in second.entry.payload["checkpoints"]] == ["exp: add NOTES.md"]
    assert (first.entry.payload["entries"], second.entry.payload["entries"]) == (3, 3)
    assert seen == [
        ["change files for exp", "exp is done"],
        ["one more thing on exp", "the notes are written"],
    ]
    assert second.files == ["NOTES.md"]
    message = git(project, "log", "-1", "--format=%B", second.commit)
    assert "exp: add NOTES.md" in message and "change src/app.py" not in message
    assert [m.id for m in merges] == [first.entry.id, second.entry.id]  # the refusal wrote none
    assert (project / "NOTES.md").read_text() == "notes\n"
    assert fsck_problems(project) == []


def test_a_conflict_is_found_before_the_summary_is_asked_for(project: Path) -> None:
    asked: list[int] = []

    async def summarize(messages: list[Message]) -> str:
        asked.append(len(messages))
        return "a summary"

    with Session.create(project) as session:
        _fork_with_commit(session, "exp", {"src/app.py": "print('branch')\n"})
        (project / "src" / "app.py").write_text("print('main')\n")
        git(project, "commit", "--quiet", "-am", "main changes the app too")
        with pytest.raises(MergeConflict):
            run(session.merge("exp", summarize=summarize))
        assert asked == []
        git(project, "reset", "--quiet", "--hard", "HEAD~1")  # main gives way: now it merges
        result = run(session.merge("exp", summarize=summarize))
    assert asked == [2]
    assert result.entry.payload["summary"] == "a summary"


def test_a_conflict_names_a_screenful_of_files_and_the_count(project: Path) -> None:
    names = [f"src/f{n:02}.py" for n in range(30)]
    for name in names:
        (project / name).write_text("base\n")
    git(project, "add", "src")
    git(project, "commit", "--quiet", "-m", "thirty files")
    with Session.create(project) as session:
        _fork_with_commit(session, "exp", dict.fromkeys(names, "branch\n"))
        for name in names:
            (project / name).write_text("main\n")
        git(project, "commit", "--quiet", "-am", "main changes them too")
        with pytest.raises(MergeConflict) as conflict:
            run(session.merge("exp"))
    assert conflict.value.files == names, "every file is still there for a front end to list"
    assert conflict.value.message.startswith(
        "merging exp into main would conflict in 30 files: src/f00.py, src/f01.py"
    )
    assert "src/f19.py and 10 more; main was left exactly as it was" in conflict.value.message
    assert "src/f20.py" not in conflict.value.message


def test_a_merge_refuses_when_the_parents_checkout_moved_to_another_branch(
    project: Path,
) -> None:
    with Session.create(project) as session:
        _fork_with_commit(session, "exp", {"src/app.py": "print('v2')\n"})
        git(project, "switch", "--quiet", "-c", "hotfix")
        hotfix = git(project, "rev-parse", "hotfix")
        with pytest.raises(WorkbenchError) as refused:
            run(session.merge("exp"))
    assert "is on hotfix now, not on main: merging would move the wrong branch" in (
        refused.value.message
    )
    assert refused.value.hint == "switch it back (git switch main) and merge again"
    assert git(project, "rev-parse", "hotfix") == hotfix, "hotfix did not move"


def test_merge_commits_run_the_users_merge_hooks(project: Path) -> None:
    hooks = project / ".git" / "hooks"
    (hooks / "commit-msg").write_text('#!/bin/sh\necho "Reviewed-by: hook" >> "$1"\n')
    (hooks / "commit-msg").chmod(0o755)
    with Session.create(project) as session:
        _fork_with_commit(session, "exp", {"src/app.py": "print('v2')\n"})
        result = run(session.merge("exp"))
        assert "Reviewed-by: hook" in git(project, "log", "-1", "--format=%B", result.commit)
        _fork_with_commit(session, "exp2", {"src/app.py": "print('v3')\n"})
        (hooks / "pre-merge-commit").write_text(
            "#!/bin/sh\necho 'no merges on Fridays' >&2\nexit 1\n"
        )
        (hooks / "pre-merge-commit").chmod(0o755)
        head = git(project, "rev-parse", "HEAD")
        with pytest.raises(WorkbenchError, match="the pre-merge-commit hook refused the merge"):
            run(session.merge("exp2"))
    assert git(project, "rev-parse", "HEAD") == head
