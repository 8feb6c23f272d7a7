"""A pull goes on past a session whose refs on the remote are not what workbench writes (a ref
pointing at a blob, a description that is not JSON): that session is skipped with a warning
naming it, the rest come in. A remote written by hand (`support.hostile_remote`) and
`workbench pull` as a real process."""

from __future__ import annotations

import json
from pathlib import Path

from support.hostile_remote import HostileRemote
from support.session_entries import cli

from workbench.sessions.session import Session

BAD_SHARED, BAD_BRANCH, BAD_JSON, GOOD = "a1" * 6, "b2" * 6, "c3" * 6, "d4" * 6
"""In the order a pull takes them: the bad ones first."""


def test_a_session_with_refs_written_by_hand_is_skipped_and_the_rest_are_pulled(
    tmp_path: Path,
) -> None:
    remote = HostileRemote(tmp_path / "remote.git")
    remote.project({"README.md": "hello\n"})
    for sid in (BAD_SHARED, BAD_BRANCH, BAD_JSON, GOOD):
        remote.conversation(sid, "main", [("user", f"question {sid}"), ("assistant", f"ok {sid}")])
        remote.describe(sid, {"session_id": sid, "name": sid, "branches": {"main": {}}})
    remote.ref(f"refs/workbench/{BAD_SHARED}/shared", remote.blob("not a commit\n"))
    remote.ref(f"refs/workbench/{BAD_BRANCH}/branches/main", remote.blob("not an entry\n"))
    remote.describe(BAD_JSON, "{oops")
    bob = remote.clone(tmp_path / "bob")

    pulled = cli(bob, "pull", "--format", "json")
    assert pulled.returncode == 0, pulled.stderr
    result = json.loads(pulled.stdout)
    assert list(result["sessions"]) == [GOOD]
    skipped = result["skipped"]
    assert set(skipped) == {BAD_SHARED, BAD_BRANCH, BAD_JSON}
    assert "shared is a blob, not a commit" in skipped[BAD_SHARED]
    assert "branches/main is a blob, not a commit" in skipped[BAD_BRANCH]
    assert "cannot be read" in skipped[BAD_JSON]
    for bad in (BAD_SHARED, BAD_BRANCH, BAD_JSON):
        assert f"warning: session {bad} not pulled" in pulled.stderr
    listed = cli(bob, "sessions", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    assert [s["id"] for s in json.loads(listed.stdout)] == [GOOD]
    with Session.open(bob, GOOD) as session:
        assert [e.payload.get("text") for e in session.store.path()][-1] == f"ok {GOOD}"
