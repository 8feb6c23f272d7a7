"""No credential leaves the machine: a push checks entries and file commits, `--redact` sends a
deterministic copy, and pulling that copy back is not a divergence."""

from __future__ import annotations

from pathlib import Path

import pytest
from sessiontools import assistant, git, run, tool_result, user
from sharetools import Person, make_team, remote_refs

from workbench.sessions.session import Session

KEY = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"


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
    assert f"entry {leaked.id[:10]} (tool_result on main): OpenAI key sk-pro…" in refused.stderr
    assert KEY not in refused.stderr and "--redact" in refused.stderr
    assert remote_refs(remote) == before

    pushed = alice.cli("push", "--redact")
    assert pushed.returncode == 0, pushed.stderr
    assert "1 entries sent redacted" in pushed.stdout
    main = f"refs/workbench/{sid}/branches/main"
    sent = git(remote, "log", "--format=%B", main)
    assert (
        KEY not in sent and "[REDACTED OpenAI key]" in sent and f'"redacts":"{leaked.id}"' in sent
    )
    assert KEY in git(alice.clone, "log", "--format=%B", main)  # the original is untouched
    assert git(remote, "log", "-1", "--format=%an", main) == "Alice Smith"

    # The copy is deterministic: more entries and another --redact push fast-forward it.
    alice.say(sid, "and now?", ["restart the proxy"])
    again = alice.cli("push", "--redact")
    assert again.returncode == 0 and "main: updated" in again.stdout, again.stderr
    # Pulling the redacted line back is not a divergence: nothing changes here.
    local_main = git(alice.clone, "rev-parse", main)
    pulled = alice.cli("pull")
    assert pulled.returncode == 0 and "diverged" not in pulled.stdout + pulled.stderr
    assert git(alice.clone, "rev-parse", main) == local_main
    assert alice.cli("push", "--redact").stdout.count("up to date") == 1


def test_a_key_in_an_experiments_files_stops_the_push_and_redact_sends_clean_files(
    team: tuple[Path, Person, Person],
) -> None:
    remote, alice, bob = team
    with Session.create(alice.clone) as session:
        run(session.store.append("user", user("deploy config")))
        run(session.fork("deploy"))
        workspace = session.workspace("deploy")
        config = "region = eu-west-1\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\n"
        (workspace / "deploy.ini").write_text(config)
        (workspace / "logo.bin").write_bytes(bytes(range(256)) * 4)
        commit = run(session.commit("Add the deploy config", branch="deploy")).commit
        (workspace / "notes.md").write_text("the key is in deploy.ini\n")
        second = run(session.commit("Notes", branch="deploy")).commit
        sid = session.id
    before = remote_refs(remote)
    refused = alice.cli("push")
    assert refused.returncode == 1
    assert f"file commit {commit[:10]} (deploy): deploy.ini: AWS access key" in refused.stderr
    assert "--redact" in refused.stderr
    assert remote_refs(remote) == before

    pushed = alice.cli("push", "--redact")
    assert pushed.returncode == 0, pushed.stderr
    assert "1 file versions sent redacted" in pushed.stdout
    files = f"refs/workbench/{sid}/files/deploy"
    assert git(remote, "show", f"{files}:deploy.ini") == (
        "region = eu-west-1\naws_access_key_id = [REDACTED AWS access key]"
    )
    assert git(remote, "show", f"{files}~1:deploy.ini").endswith("[REDACTED AWS access key]")
    assert "AKIAIOSFODNN7EXAMPLE" not in git(remote, "log", "-p", files)
    assert f"Workbench-Redacts: {second}" in git(remote, "log", "-1", "--format=%B", files)
    assert git(remote, "rev-parse", f"{files}:logo.bin") == git(
        alice.clone, "rev-parse", f"{second}:logo.bin"
    )  # files without a credential are the same blobs
    local = f"refs/heads/wb/{sid}/deploy"
    assert "AKIAIOSFODNN7EXAMPLE" in git(alice.clone, "show", f"{local}:deploy.ini")
    # Deterministic, and recognised when it comes back.
    again = alice.cli("push", "--redact")
    assert again.returncode == 0 and "files of deploy: up to date" in again.stdout
    pulled = alice.cli("pull")
    assert pulled.returncode == 0 and "files of deploy" not in pulled.stdout, pulled.stdout
    assert bob.cli("pull").returncode == 0
    with Session.open(bob.clone, sid, branch="deploy") as session:
        text = (session.workspace() / "deploy.ini").read_text()
    assert "[REDACTED AWS access key]" in text and "AKIA" not in text
