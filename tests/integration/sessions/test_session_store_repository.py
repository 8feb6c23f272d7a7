"""The conversation lives in a store repository of its own under `.git/workbench/`: the project's
`git log --all` never lists it, `git gc` in the project never breaks it, and sessions an earlier
workbench kept in the project's own refs move there on first open with nothing lost."""

from __future__ import annotations

import shutil
from pathlib import Path

from support.session_entries import (
    assistant,
    fsck_problems,
    git,
    make_project,
    run,
    store_dir,
    user,
)
from support.team_remote import Person, make_team, remote_refs, tree_json

from workbench.sessions.session import Session
from workbench.sessions.store.migrate import may_hold_old_refs

CONVERSATION = ("user: ", "assistant: ", "label: ", "checkpoint: ", "workbench: shared")


def conversation_subjects(repository: Path) -> list[str]:
    """The subjects of conversation commits that `git log --all` lists in `repository`."""
    subjects = git(repository, "log", "--all", "--format=%s").splitlines()
    return [s for s in subjects if s.startswith(CONVERSATION)]


def experiment_session(person: Person) -> str:
    """A session with entries on main, a labelled entry and a committed experiment `exp`."""
    with Session.create(person.clone) as session:
        run(session.store.append("user", user("make the parser faster")))
        done = run(session.store.append("assistant", assistant("Done.")))
        run(session.label("first-try", done.id))
        run(session.fork("exp"))
        (session.workspace("exp") / "parser.py").write_text("TABLE = {}\n")
        run(session.commit("Table-driven parser", branch="exp"))
        run(session.store.append("user", user("measure it")))
        return session.id


def test_the_projects_git_log_all_shows_no_conversation_commit(tmp_path: Path) -> None:
    remote, alice, bob = make_team(tmp_path)
    sid = experiment_session(alice)
    assert alice.cli("push").returncode == 0
    assert bob.cli("pull").returncode == 0

    for person in (alice, bob):
        assert conversation_subjects(person.clone) == []
        assert git(person.clone, "for-each-ref", "refs/workbench/") == ""
        # The experiment's file commits are the project's: its branch is there to merge.
        assert "Table-driven parser" in git(person.clone, "log", "--all", "--format=%s")
        store = store_dir(person.clone)
        assert "user: make the parser faster" in git(store, "log", "--all", "--format=%s")
        assert fsck_problems(store) == []
    assert f"refs/workbench/{sid}/branches/main" in remote_refs(remote)
    fresh = tmp_path / "fresh"
    git(tmp_path, "clone", "--quiet", "--no-local", str(remote), str(fresh))
    assert conversation_subjects(fresh) == []


def test_gc_prune_now_in_the_project_never_breaks_a_session(tmp_path: Path) -> None:
    _, alice, bob = make_team(tmp_path)
    sid = experiment_session(alice)
    assert alice.cli("push").returncode == 0
    assert bob.cli("pull").returncode == 0
    for person in (alice, bob):
        git(person.clone, "reflog", "expire", "--expire=now", "--all")
        git(person.clone, "gc", "--quiet", "--prune=now")
        assert fsck_problems(store_dir(person.clone)) == []

    texts = [e["text"] for e in tree_json(bob, "--session", sid)["entries"]]
    assert texts[:2] == ["make the parser faster", "Done."]
    bob.say(sid, "go on with the table")
    with Session.open(bob.clone, sid, branch="exp") as session:
        assert (session.workspace("exp") / "parser.py").read_text() == "TABLE = {}\n"
        status = run(session.status("exp"))
    assert "parser.py" in status.render_text()
    exported = bob.cli("export", "--session", sid, "--branch", "exp", "--format", "md", "-o", "-")
    assert exported.returncode == 0 and "+TABLE = {}" in exported.stdout, exported.stderr
    pushed = bob.cli("push")
    assert pushed.returncode == 0 and "main: updated" in pushed.stdout, pushed.stderr
    assert alice.cli("pull").returncode == 0
    texts = [e["text"] for e in tree_json(alice, "--session", sid)["entries"]]
    assert "go on with the table" in texts


def test_sessions_of_the_old_layout_move_into_the_store_on_first_open(tmp_path: Path) -> None:
    _, alice, _ = make_team(tmp_path)
    sid = experiment_session(alice)
    assert alice.cli("push").returncode == 0
    before = tree_json(alice, "--session", sid)
    # The layout an earlier workbench wrote: the conversation refs (and the remote's view of
    # them) in the project's own repository, no store; locks and worktrees where they are.
    store = store_dir(alice.clone)
    for root in ("refs/workbench", "refs/workbench-remotes"):
        git(alice.clone, "fetch", "--quiet", str(store), f"+{root}/*:{root}/*")
    shutil.rmtree(store)
    old = git(alice.clone, "for-each-ref", "--format=%(refname)", "refs/workbench/").split()
    assert len(old) == 3 and conversation_subjects(alice.clone) != []

    assert tree_json(alice, "--session", sid) == before  # the first open moves them
    assert git(alice.clone, "for-each-ref", "refs/workbench/", "refs/workbench-remotes/") == (
        git(alice.clone, "for-each-ref", "refs/workbench-remotes/*/*/files/*")
    )  # what is left is the view of the experiment's file commits, project commits
    git(alice.clone, "reflog", "expire", "--expire=now", "--all")
    git(alice.clone, "gc", "--quiet", "--prune=now")
    assert conversation_subjects(alice.clone) == []
    assert sorted(git(store, "for-each-ref", "--format=%(refname)", "refs/workbench/").split()) == (
        sorted(old)
    )
    assert fsck_problems(store) == []

    with Session.open(alice.clone, sid) as session:
        assert session.store.branch == "exp"  # where the position was: on the experiment
        head = session.store.head("exp")
        assert run(session.store.append("user", user("still here"))).parent == head
        assert session.store.resolve("first-try").payload["text"] == "Done."
        assert (session.workspace("exp") / "parser.py").read_text() == "TABLE = {}\n"
    pushed = alice.cli("push")
    assert pushed.returncode == 0, pushed.stderr
    assert "exp: updated" in pushed.stdout and "files of exp: up to date" in pushed.stdout


def test_the_project_is_asked_for_old_refs_only_when_its_files_show_some(tmp_path: Path) -> None:
    """Each opening of a session would pay a git process to look for an earlier layout's refs:
    the project's ref files tell whether there may be any, loose or packed; the folders git
    leaves behind once they are gone, and the remote views of file commits, do not count."""
    project = make_project(tmp_path / "project")
    common, head = project / ".git", git(project, "rev-parse", "HEAD")
    assert not may_hold_old_refs(common)
    git(project, "update-ref", "refs/workbench/s1/state", head)
    assert may_hold_old_refs(common)
    git(project, "pack-refs", "--all")
    assert may_hold_old_refs(common) and not (common / "refs/workbench/s1/state").exists()
    git(project, "update-ref", "-d", "refs/workbench/s1/state")
    git(project, "update-ref", "refs/workbench-remotes/origin/s1/files/exp", head)
    assert not may_hold_old_refs(common)  # the empty folders and a view of file commits
    git(project, "update-ref", "refs/workbench-remotes/origin/s1/branches/main", head)
    assert may_hold_old_refs(common)
