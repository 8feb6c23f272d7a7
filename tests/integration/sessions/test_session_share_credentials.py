"""What a push checks for credentials, read from a real bare remote: every field of every entry as
its decoded text (a key at the start of a line included), every copy replaced by `--redact`,
the commits the remote does not have yet (messages and files), and no false alarm on a digest or
a UUID that merely sits after a `*_key` name."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from support.session_entries import assistant, git, run, store_dir, tool_result, user
from support.team_remote import Person, make_team, remote_refs

from workbench.messages import Message, ToolCall
from workbench.sessions.session import Session

KEY = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
ANTHROPIC = "sk-ant-api03-Zx8Qp2Lm9Vr4Tk7Wn3Yb6Hc1Jd5Ge0Fa"
GITHUB = "ghp_1A2b3C4d5E6f7G8h9I0jK1l2M3n4O5p6Q7r8"
SLACK = "xoxb-123456789012-abcdefghijKLMN"
AWS = "AKIAIOSFODNN7EXAMPLE"


@pytest.fixture
def team(tmp_path: Path) -> tuple[Path, Person, Person]:
    return make_team(tmp_path)


def every_object(remote: Path) -> str:
    """The content of every object the remote holds, as one text."""
    done = subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"],
        cwd=remote,
        capture_output=True,
        check=True,
    )
    return done.stdout.decode("utf-8", errors="replace")


def report(answer: str) -> dict:
    """A sub-agent tool's result: the child's report rides in the details, as the tool puts it."""
    child = {"agent": "scout", "status": "completed", "answer": answer}
    message = Message(
        role="tool_result",
        text="1 agent finished",
        tool_call_id="call-subagent",
        tool_name="subagent",
        details={"subagent": {"mode": "single", "scope": "user", "results": [child]}},
    )
    return message.to_dict()


def test_a_credential_at_the_start_of_any_line_of_any_field_stops_the_push(
    team: tuple[Path, Person, Person],
) -> None:
    remote, alice, _ = team
    with Session.create(alice.clone) as session:
        append = session.store.append
        asked = run(append("user", user(f"the client fails with:\n{KEY}")))
        call = ToolCall("call-bash", "bash", {"command": f"cd app &&\n{GITHUB} ./deploy"})
        called = run(append("assistant", Message(role="assistant", tool_calls=[call]).to_dict()))
        result = run(append("tool_result", tool_result("bash", f"done\n\t{SLACK}")))
        summary = Message(role="compaction", text=f"## Goal\nFix the client.\n{ANTHROPIC}")
        compacted = run(append("compaction", summary.to_dict()))
        reported = run(append("tool_result", report(f"the scout found:\n{AWS}")))
        labelled = run(session.label(f"deploy\t{KEY}"))
    before = remote_refs(remote)

    refused = alice.cli("push")
    assert refused.returncode == 1, refused.stdout
    said = refused.stderr
    assert "6 credentials found in what would be sent" in said
    for where in (
        f"entry {asked.id[:10]} (user on main), text line 2: OpenAI key sk-pro…",
        f"entry {called.id[:10]} (assistant on main), tool_calls[0].arguments.command line 2: "
        "GitHub token ghp_1A…r8",
        f"entry {result.id[:10]} (tool_result on main), text line 2: Slack token xoxb-1…MN",
        f"entry {compacted.id[:10]} (compaction on main), text line 3: Anthropic key sk-ant…Fa",
        f"entry {reported.id[:10]} (tool_result on main), details.subagent.results[0].answer "
        "line 2: "
        "AWS access key AKIAIO…LE",
        f"entry {labelled.id[:10]} (label on main), label: OpenAI key sk-pro…",
    ):
        assert where in said, said
    assert KEY not in said and remote_refs(remote) == before


def test_redact_leaves_no_copy_of_a_credential_in_any_object_the_remote_holds(
    team: tuple[Path, Person, Person],
) -> None:
    remote, alice, bob = team
    with Session.create(alice.clone) as session:
        append = session.store.append
        # Twice in the question (whose first line also names the session), once at a line start.
        run(append("user", user(f"use {KEY} for the client\nor, again:\n{KEY}")))
        call = ToolCall("call-bash", "bash", {"command": f"curl -H 'Bearer {KEY}' localhost"})
        run(append("assistant", Message(role="assistant", tool_calls=[call]).to_dict()))
        run(append("tool_result", report(f"the scout quoted it:\n{KEY}")))
        run(append("assistant", assistant(f"Rotate it, it was pasted here:\n\t{KEY}")))
        sid = session.id

    pushed = alice.cli("push", "--redact")
    assert pushed.returncode == 0, pushed.stderr
    # 2 in the question, 1 in the call, 1 in the report, 1 in the reply, 1 in the session's name
    assert "6 credentials replaced: 4 entries sent redacted" in pushed.stdout
    sent = every_object(remote)
    assert KEY not in sent and KEY[8:30] not in sent
    assert sent.count("[REDACTED OpenAI key]") >= 6
    assert KEY in git(
        store_dir(alice.clone), "log", "--format=%B", f"refs/workbench/{sid}/branches/main"
    )

    assert bob.cli("pull").returncode == 0
    with Session.open(bob.clone, sid) as session:
        texts = [entry.payload for entry in session.store.branch_path("main")]
    assert "or, again:\n[REDACTED OpenAI key]" in texts[0]["text"]
    answer = texts[2]["details"]["subagent"]["results"][0]["answer"]
    assert answer == "the scout quoted it:\n[REDACTED OpenAI key]"


def test_a_key_in_a_project_commit_the_remote_never_had_stops_the_push_even_with_redact(
    team: tuple[Path, Person, Person],
) -> None:
    remote, alice, _ = team
    (alice.clone / ".env").write_text(f"DEBUG=1\nOPENAI_API_KEY={KEY}\n")
    git(alice.clone, "add", ".env")
    git(alice.clone, "commit", "-qm", f"Local settings\n\nthe token is {GITHUB}")
    local = git(alice.clone, "rev-parse", "HEAD")
    with Session.create(alice.clone) as session:
        run(session.store.append("user", user("try it on a branch")))
        run(session.fork("exp"))
    before = remote_refs(remote)

    for args in (["push"], ["push", "--redact"]):
        refused = alice.cli(*args)
        assert refused.returncode == 1, refused.stdout
        assert f"commit {local[:10]} (project history): .env line 2: OpenAI key" in refused.stderr
        assert f"commit {local[:10]} (project history) message line 3: GitHub token" in (
            refused.stderr
        )
        assert "git commit --amend" in refused.stderr and "never your commits" in refused.stderr
        assert remote_refs(remote) == before


def fast_import(clone: Path, commits: int) -> None:
    """`commits` more commits on main, each changing one file, written by git fast-import."""
    head = git(clone, "rev-parse", "HEAD")
    stream = []
    for n in range(commits):
        message, content = f"step {n}\n".encode(), f"value = {n}\n".encode()
        stream += [
            b"commit refs/heads/main",
            b"committer Alice Smith <alice@example.com> 1700000000 +0000",
            b"data %d" % len(message),
            message,
            *([b"from " + head.encode()] if n == 0 else []),
            b"M 100644 inline counter.txt",
            b"data %d" % len(content),
            content,
        ]
    subprocess.run(
        ["git", "fast-import", "--quiet"], cwd=clone, input=b"\n".join(stream) + b"\n", check=True
    )
    git(clone, "reset", "--hard", "--quiet")


def test_a_history_longer_than_the_cap_is_pushed_and_says_what_was_not_checked(
    team: tuple[Path, Person, Person],
) -> None:
    _, alice, _ = team
    fast_import(alice.clone, 1004)
    with Session.create(alice.clone) as session:
        run(session.store.append("user", user("a long history")))
        run(session.fork("exp"))
        workspace = session.workspace("exp")
        (workspace / "logo.bin").write_bytes(bytes(range(256)) * 4)
        (workspace / "big.txt").write_text("x" * (1 << 20) + "\n")
        run(session.commit("Assets", branch="exp"))
    pushed = alice.cli("push")
    assert pushed.returncode == 0, pushed.stderr
    assert "5 older commits not checked for credentials (the newest 1,000 were)" in pushed.stdout
    assert "files over 1 MiB not checked for credentials: big.txt" in pushed.stdout
    assert "binary files not checked for credentials: logo.bin" in pushed.stdout


def test_a_digest_or_uuid_after_a_key_name_is_no_secret_but_a_hex_api_key_is(
    team: tuple[Path, Person, Person],
) -> None:
    remote, alice, _ = team
    sha = "9fceb02d0ae598e95dc970b74767f19372d61af8"
    digest = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    uuid = "3f2b8c1e-7d4a-4e9b-a1c3-5f6e7d8c9b0a"
    ids = f"cache_key: {sha}\nidempotency_key: {uuid}\ncontent_digest_key = {digest}"
    with Session.create(alice.clone) as session:
        run(session.store.append("user", user("what did the job record?")))
        run(session.store.append("tool_result", tool_result("bash", ids)))
        sid = session.id
    pushed = alice.cli("push")
    assert pushed.returncode == 0, pushed.stderr
    assert "main: new" in pushed.stdout

    hex_key = "a3f9c2e1b7d84f6a9c0e2b4d6f8a1c3e5b7d9f0a"
    alice.say(sid, "and the api?", [f"found it: api_key: {hex_key}"])
    refused = alice.cli("push")
    assert refused.returncode == 1
    assert "(assistant on main), text: secret assignment a3f9c2…0a" in refused.stderr
    assert hex_key not in every_object(remote)
