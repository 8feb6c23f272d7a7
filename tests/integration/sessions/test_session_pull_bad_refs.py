"""A pull goes on past a session whose refs on the remote are not what workbench writes (a ref
rewritten by hand to a blob): that session is skipped with a warning naming it, the rest come in.
A real bare remote, written to with plain git, and `workbench pull` as a real process."""

from __future__ import annotations

import json
from pathlib import Path

from sessiontools import assistant, git, run, user
from sharetools import Person, make_team

from workbench.sessions.session import Session


def new_session(person: Person, text: str) -> str:
    with Session.create(person.clone) as session:
        run(session.store.append("user", user(text)))
        run(session.store.append("assistant", assistant(f"ok: {text}")))
        return session.id


def point_at_a_blob(remote: Path, ref: str) -> None:
    junk = remote.parent / "junk.txt"
    junk.write_text("not a commit\n")
    git(remote, "update-ref", ref, git(remote, "hash-object", "-w", str(junk)))


def unreadable_description(remote: Path, ref: str) -> None:
    """`ref` moved on to a commit whose message is not the JSON a description is."""
    tree = git(remote, "rev-parse", f"{ref}^{{tree}}")
    author = ("-c", "user.name=M", "-c", "user.email=m@example.com")
    git(remote, "update-ref", ref, git(remote, *author, "commit-tree", tree, "-m", "{oops"))


def test_a_session_with_refs_written_by_hand_is_skipped_and_the_rest_are_pulled(
    tmp_path: Path,
) -> None:
    remote, alice, bob = make_team(tmp_path)
    asked = {new_session(alice, f"question {n}"): f"question {n}" for n in range(4)}
    for sid in asked:
        assert alice.cli("push", "--session", sid).returncode == 0
    bad_shared, bad_branch, bad_json, good = sorted(asked)  # the bad ones come first in a pull
    point_at_a_blob(remote, f"refs/workbench/{bad_shared}/shared")
    point_at_a_blob(remote, f"refs/workbench/{bad_branch}/branches/main")
    unreadable_description(remote, f"refs/workbench/{bad_json}/shared")

    pulled = bob.cli("pull", "--format", "json")
    assert pulled.returncode == 0, pulled.stderr
    result = json.loads(pulled.stdout)
    assert list(result["sessions"]) == [good]
    assert set(result["skipped"]) == {bad_shared, bad_branch, bad_json}
    assert "shared" in result["skipped"][bad_shared] and "blob" in result["skipped"][bad_shared]
    assert "branches/main" in result["skipped"][bad_branch]
    assert "cannot be read" in result["skipped"][bad_json]
    for bad in (bad_shared, bad_branch, bad_json):
        assert f"warning: session {bad} not pulled" in pulled.stderr
    listed = bob.cli("sessions", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    assert [s["id"] for s in json.loads(listed.stdout)] == [good]
    with Session.open(bob.clone, good) as session:
        assert [e.payload.get("text") for e in session.store.path()][-1] == f"ok: {asked[good]}"
