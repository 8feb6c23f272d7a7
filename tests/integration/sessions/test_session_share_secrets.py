"""No credential leaves the machine: a push checks entries and file commits, `--redact` sends a
deterministic copy of the entries, and pulling that copy back is not a divergence; a credential
in a commit is for its author to amend, never rewritten by the push."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from support.session_entries import assistant, git, run, store_dir, tool_result, user
from support.team_remote import Person, make_team, remote_refs

from workbench.sessions.session import Session

KEY = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
GITHUB = "ghp_1A2b3C4d5E6f7G8h9I0jK1l2M3n4O5p6Q7r8"


@pytest.fixture
def team(tmp_path: Path) -> tuple[Path, Person, Person]:
    return make_team(tmp_path)


def test_a_key_in_an_entry_stops_the_push_and_redact_sends_a_copy(
    team: tuple[Path, Person, Person],
) -> None:
    remote, alice, _ = team
    with Session.create(alice.clone) as session:
        run(session.store.append("user", user("why does the client fail?")))
        leaked = run(
            session.store.append("tool_result", tool_result("bash", f"OPENAI_API_KEY={KEY}"))
        )
        run(session.store.append("assistant", assistant("the key is set; the proxy is down")))
        sid = session.id
    before = remote_refs(remote)

    refused = alice.cli("push")
    assert refused.returncode == 1
    assert f"entry {leaked.id[:10]} (tool_result on main), text: OpenAI key sk-pro…" in (
        refused.stderr
    )
    assert KEY not in refused.stderr and "--redact" in refused.stderr
    assert remote_refs(remote) == before

    pushed = alice.cli("push", "--redact")
    assert pushed.returncode == 0, pushed.stderr
    assert "1 credential replaced: 1 entry sent redacted" in pushed.stdout
    main = f"refs/workbench/{sid}/branches/main"
    sent = git(remote, "log", "--format=%B", main)
    assert (
        KEY not in sent and "[REDACTED OpenAI key]" in sent and f'"redacts":"{leaked.id}"' in sent
    )
    assert KEY in git(
        store_dir(alice.clone), "log", "--format=%B", main
    )  # the original is untouched
    assert git(remote, "log", "-1", "--format=%an", main) == "Alice Smith"

    # The copy is deterministic: more entries and another --redact push fast-forward it.
    alice.say(sid, "and now?", ["restart the proxy"])
    again = alice.cli("push", "--redact")
    assert again.returncode == 0 and "main: updated" in again.stdout, again.stderr
    # Pulling the redacted line back is not a divergence: nothing changes here.
    local_main = git(store_dir(alice.clone), "rev-parse", main)
    pulled = alice.cli("pull")
    assert pulled.returncode == 0 and "diverged" not in pulled.stdout + pulled.stderr
    assert git(store_dir(alice.clone), "rev-parse", main) == local_main
    assert alice.cli("push", "--redact").stdout.count("up to date") == 1


def test_a_key_in_an_experiments_commit_stops_the_push_even_with_redact_until_amended(
    team: tuple[Path, Person, Person],
) -> None:
    remote, alice, _ = team
    with Session.create(alice.clone) as session:
        run(session.store.append("user", user("deploy config")))
        run(session.fork("deploy"))
        workspace = session.workspace("deploy")
        config = "region = eu-west-1\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\n"
        (workspace / "deploy.ini").write_text(config)
        commit = run(session.commit("Add the deploy config", branch="deploy")).commit
        (workspace / "notes.md").write_text("the key is in deploy.ini\n")
        second = run(session.commit(f"Notes\n\nthe token: {GITHUB}", branch="deploy")).commit
    before = remote_refs(remote)
    for args in (["push"], ["push", "--redact"]):
        refused = alice.cli(*args)
        assert refused.returncode == 1, refused.stdout
        said = refused.stderr
        assert f"commit {commit[:10]} (files of deploy): deploy.ini line 2: AWS access key" in said
        assert f"commit {second[:10]} (files of deploy) message line 3: GitHub token" in said
        assert "git commit --amend" in said and "--redact rewrites entries only" in said
        assert remote_refs(remote) == before

    # Amended in the experiment's worktree: the entries still quote the token (the checkpoint's
    # message), which --redact replaces; the commits go as they are now.
    (workspace / "deploy.ini").write_text("region = eu-west-1\n")
    git(workspace, "reset", "--soft", "HEAD~2")
    git(workspace, "commit", "-qam", "Add the deploy config and notes")
    assert alice.cli("push").returncode == 1
    pushed = alice.cli("push", "--redact")
    assert pushed.returncode == 0, pushed.stderr
    sent = subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"], cwd=remote, capture_output=True
    ).stdout
    assert b"AKIAIOSFODNN7EXAMPLE" not in sent and GITHUB.encode() not in sent
