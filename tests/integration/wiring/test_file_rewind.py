"""Going back in the conversation with the files: snapshots taken around each tool call (real
git, a scripted model), restored on navigate with `restore_files`, on main and in a fork; the
restore can be undone, and is refused when files changed outside the agent since."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.git_project import git, store_dir
from support.opened_workbench import bash, read, script, write
from support.session_entries import cli

from workbench.sessions.workspaces.rewind import ChangedOutside

CHANGES = "echo v2 > src/app.py; rm README.md; echo more > more.txt"


def files(root: Path) -> dict[str, str]:
    """The project's files (outside `.git`), path -> text."""
    found = (p for p in root.rglob("*") if p.is_file() and ".git" not in p.parts)
    return {p.relative_to(root).as_posix(): p.read_text() for p in sorted(found)}


async def test_going_back_restores_what_the_agent_changed_and_the_restore_can_be_undone(
    opened, project: Path, tmp_path: Path
) -> None:
    model = script(
        tmp_path, [{"text": "hello"}, write("notes.txt", "mine\n"), bash(CHANGES), {"text": "ok"}]
    )
    session = await opened(project, model)
    await session.run("hi")
    before = files(project)
    first_answer = session.wb.current.store.path()[-1].id
    await session.run("change things")
    after = files(project)
    assert after["src/app.py"] == "v2\n" and "README.md" not in after and "more.txt" in after

    assert await session.wb.files_to_restore(first_answer) == [
        "README.md",
        "more.txt",
        "notes.txt",
        "src/app.py",
    ]
    moved = await session.wb.navigate(first_answer, restore_files=True)
    assert files(project) == before, "bash's changes and the untracked files are undone too"
    assert moved.files is not None and moved.files.undo is not None
    assert "files restored to this point: 4 files" in moved.render_text()
    assert git(project, "log", "--all", "--format=%s") == "skills\ninitial", "not on a branch"

    again = await session.wb.navigate(moved.files.undo, restore_files=True)
    assert files(project) == after, "going back to where it was undoes the restore"
    assert again.files is not None and len(again.files.changed) == 4


async def test_a_file_changed_outside_the_agent_refuses_the_restore_and_is_named(
    opened, project: Path, tmp_path: Path
) -> None:
    model = script(tmp_path, [{"text": "hello"}, write("notes.txt", "mine\n"), {"text": "ok"}])
    session = await opened(project, model)
    await session.run("hi")
    first_answer = session.wb.current.store.path()[-1].id
    await session.run("write notes")
    here = session.wb.current.store.path()[-1].id
    (project / "src" / "app.py").write_text("edited by hand\n")

    with pytest.raises(ChangedOutside) as refused:
        await session.wb.navigate(first_answer, restore_files=True)
    assert "1 file changed outside the agent since its last snapshot: src/app.py" in str(
        refused.value.message
    )
    assert session.wb.current.store.path()[-1].id == here, "nothing moved"
    assert (project / "notes.txt").exists() and "by hand" in (project / "src/app.py").read_text()
    moved = await session.wb.navigate(first_answer)
    assert moved.files is None and (project / "notes.txt").exists(), "going there alone works"


async def test_a_fork_restores_its_own_worktree(opened, project: Path, tmp_path: Path) -> None:
    model = script(
        tmp_path,
        [write("a.txt", "first\n"), {"text": "a"}, write("b.txt", "second\n"), {"text": "b"}],
    )
    session = await opened(project, model)
    await session.wb.fork("exp")
    worktree = await session.wb.workspace_ready()
    await session.run("write a")
    after_a = session.wb.current.store.path()[-1].id
    await session.run("write b")
    assert (worktree / "b.txt").exists()

    await session.wb.navigate(after_a, restore_files=True)
    assert (worktree / "a.txt").read_text() == "first\n" and not (worktree / "b.txt").exists()
    assert not (project / "a.txt").exists(), "the checkout is not the fork's"


async def test_navigate_restore_files_on_the_command_line(
    opened, project: Path, tmp_path: Path
) -> None:
    model = script(tmp_path, [{"text": "hello"}, bash("echo new > new.txt"), {"text": "ok"}])
    session = await opened(project, model)
    await session.run("hi")
    first_answer = session.wb.current.store.path()[-1].id
    await session.run("make a file")
    await session.wb.close()
    snapshots = git(store_dir(project), "for-each-ref", "--format=%(refname)")
    assert "/snapshots/checkout/latest" in snapshots

    done = cli(project, "navigate", first_answer[:12], "--restore-files")
    assert done.returncode == 0, done.stderr
    assert "files restored to this point: 1 file (new.txt)" in done.stdout
    assert not (project / "new.txt").exists()


async def test_a_read_takes_no_snapshot_and_a_write_is_recorded_by_the_end_of_its_run(
    opened, project: Path, tmp_path: Path
) -> None:
    """A tool that changes no file is not wrapped in snapshots (git scanning the workspace
    twice for nothing); the snapshot after a write is made while the model is asked again, and
    is there once the run has ended."""
    model = script(
        tmp_path,
        [read("src/app.py"), {"text": "read"}, write("notes.txt", "mine\n"), {"text": "ok"}],
    )
    session = await opened(project, model)
    await session.run("read it")
    store = store_dir(project)
    assert "/snapshots/" not in git(store, "for-each-ref", "--format=%(refname)")

    await session.run("write notes")
    result = next(e for e in reversed(session.wb.current.store.path()) if e.type == "tool_result")
    snapshots = git(store, "for-each-ref", "--format=%(refname)").splitlines()
    assert any(ref.endswith(f"/snapshots/checkout/{result.id}") for ref in snapshots)
    first_answer = session.wb.current.store.path()[1].id
    await session.wb.navigate(first_answer, restore_files=True)
    assert not (project / "notes.txt").exists(), "the write is undone"
