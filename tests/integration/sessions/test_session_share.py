"""Sharing sessions through a real git remote: a bare repository on disk, Alice's and Bob's clones
(different git identities), `workbench push` / `pull` / `sessions` as real processes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sessiontools import assistant, git, run, user
from sharetools import Person, make_team, remote_refs, tree_json

from workbench.sessions.session import Session


@pytest.fixture
def team(tmp_path: Path) -> tuple[Path, Person, Person]:
    return make_team(tmp_path)


def start_session(person: Person, with_experiment: bool = True) -> str:
    """A session with two entries on main and, optionally, a committed experiment `exp`."""
    with Session.create(person.clone) as session:
        run(session.store.append("user", user("make the parser faster")))
        run(session.store.append("assistant", assistant("I will try a table-driven parser")))
        if with_experiment:
            run(session.fork("exp"))
            (session.workspace("exp") / "parser.py").write_text("TABLE = {}\n")
            run(session.commit("Table-driven parser", branch="exp"))
            run(session.store.append("user", user("measure it")))
        return session.id


def test_push_sends_only_the_sessions_namespace_and_pull_brings_it_to_a_colleague(
    team: tuple[Path, Person, Person],
) -> None:
    remote, alice, bob = team
    sid = start_session(alice)
    before = remote_refs(remote)

    pushed = alice.cli("push")
    assert pushed.returncode == 0, pushed.stderr
    assert "main: new" in pushed.stdout and "files of exp: new" in pushed.stdout
    refs = remote_refs(remote)
    added = sorted(set(refs) - set(before))
    assert added == [
        f"refs/workbench/{sid}/branches/exp",
        f"refs/workbench/{sid}/branches/main",
        f"refs/workbench/{sid}/files/exp",
        f"refs/workbench/{sid}/shared",
    ]
    assert refs["refs/heads/main"] == before["refs/heads/main"]  # a plain branch is untouched
    shared = git(remote, "log", "-1", "--format=%B", f"refs/workbench/{sid}/shared")
    assert str(alice.clone) not in shared and "worktree" not in shared and "lock" not in shared
    assert git(remote, "show", f"refs/workbench/{sid}/files/exp:parser.py") == "TABLE = {}"

    again = alice.cli("push")
    assert again.returncode == 0 and "main: up to date" in again.stdout

    pulled = bob.cli("pull")
    assert pulled.returncode == 0, pulled.stderr
    assert f"session {sid} from origin" in pulled.stdout and "files of exp: new" in pulled.stdout
    listed = json.loads(bob.cli("sessions", "--format", "json").stdout)
    assert [(s["id"], s["authors"], s["remote"]) for s in listed] == [
        (sid, ["Alice Smith"], "origin")
    ]
    assert "by Alice Smith  from origin" in bob.cli("sessions").stdout
    tree = tree_json(bob, "--session", sid)
    assert [e["text"] for e in tree["entries"]][:2] == [
        "make the parser faster",
        "I will try a table-driven parser",
    ]
    assert {b["name"] for b in tree["branches"]} == {"main", "exp"}

    # Bob continues Alice's experiment: the worktree is made from her file commits, and the
    # new entries are his.
    bob.say(sid, "now cache the table")
    bob_exp = Session.open(bob.clone, sid, branch="exp")
    try:
        assert (bob_exp.workspace("exp") / "parser.py").read_text() == "TABLE = {}\n"
    finally:
        bob_exp.close()
    main_head = git(bob.clone, "rev-parse", f"refs/workbench/{sid}/branches/main")
    assert git(bob.clone, "log", "-1", "--format=%an", main_head) == "Bob Jones"

    assert bob.cli("push").returncode == 0
    back = alice.cli("pull")
    assert back.returncode == 0 and "main: updated" in back.stdout, back.stdout + back.stderr
    assert git(alice.clone, "rev-parse", f"refs/workbench/{sid}/branches/main") == main_head
    listed = json.loads(alice.cli("sessions", "--format", "json").stdout)
    assert listed[0]["authors"] == ["Alice Smith", "Bob Jones"] and listed[0]["remote"] == ""


def test_diverged_branch_push_is_refused_and_pull_keeps_both_lines(
    team: tuple[Path, Person, Person],
) -> None:
    remote, alice, bob = team
    sid = start_session(alice, with_experiment=False)
    assert alice.cli("push").returncode == 0
    assert bob.cli("pull").returncode == 0
    alice.say(sid, "alice's idea", ["alice's answer"])
    bob.say(sid, "bob's idea", ["bob's answer"])
    assert alice.cli("push").returncode == 0
    remote_main = remote_refs(remote)[f"refs/workbench/{sid}/branches/main"]

    refused = bob.cli("push")
    assert refused.returncode == 1
    assert "origin has moved on" in refused.stderr and "workbench pull origin" in refused.stderr
    assert remote_refs(remote)[f"refs/workbench/{sid}/branches/main"] == remote_main

    pulled = bob.cli("pull")
    assert pulled.returncode == 0, pulled.stderr
    assert "main diverged: their line is now the branch main@alice" in pulled.stdout
    assert "kept both lines" in pulled.stderr
    tree = tree_json(bob, "--session", sid)
    by_text = {e["text"]: e["branch"] for e in tree["entries"]}
    assert by_text["alice's idea"] == "main@alice" and by_text["bob's idea"] == "main"
    assert by_text["make the parser faster"] == "main"
    branches = {b["name"]: b for b in tree["branches"]}
    assert branches["main@alice"]["parent_branch"] == "main"
    assert branches["main@alice"]["head"] == remote_main

    # Bob joins Alice's line into his and pushes: a fast-forward there, nothing forced.
    merged = bob.cli("merge", "main@alice", "--session", sid)
    assert merged.returncode == 0, merged.stderr
    pushed = bob.cli("push")
    assert pushed.returncode == 0, pushed.stderr
    assert alice.cli("pull").returncode == 0
    texts = [e["text"] for e in tree_json(alice, "--session", sid)["entries"]]
    assert "alice's idea" in texts and "bob's idea" in texts
    main_ref = f"refs/workbench/{sid}/branches/main"
    assert git(remote, "merge-base", "--is-ancestor", remote_main, main_ref) == ""
