"""The model a session was run with comes back with it: `-c` with no flags reaches the same
server; a pulled session's endpoint (someone else's) is not sent the key without asking."""

from __future__ import annotations

from pathlib import Path

from support.openai_server import OpenAIServer, Reply
from support.team_remote import make_team
from support.workbench_process import run_workbench


def asked(server: OpenAIServer) -> list[str]:
    """The last user message of each request the server saw."""
    return [request["messages"][-1]["content"] for request in server.requests]


def first_run(project, server):
    """A first `-p` on `openai/x` at the local server: the session records both."""
    model = ["--model", "openai/x", "--api-base", server.url, "--api-key", "k"]
    return run_workbench("-p", *model, "one", cwd=project, timeout=90)


def test_continue_without_flags_reopens_the_sessions_model_and_endpoint(project, server):
    server.add(Reply(text="first answer"), Reply(text="second answer"))
    first = first_run(project, server)
    assert (first.returncode, first.stdout) == (0, "first answer\n"), first.stderr
    again = run_workbench("-p", "-c", "two", cwd=project, timeout=90)
    assert (again.returncode, again.stdout) == (0, "second answer\n"), again.stderr
    assert asked(server) == ["one", "two"]
    assert server.requests[1]["model"] == "x"


def test_flags_win_over_the_recorded_model(project, server):
    server.add(Reply(text="first answer"))
    first = first_run(project, server)
    assert first.returncode == 0, first.stderr
    demo = run_workbench("-p", "-c", "--model", "demo", "hello", cwd=project, timeout=90)
    assert demo.returncode == 0, demo.stderr
    assert asked(server) == ["one"], "the named model answered, not the recorded one"


def test_a_pulled_sessions_endpoint_is_not_sent_the_key_without_asking(
    tmp_path: Path, server: OpenAIServer
):
    _, alice, bob = make_team(tmp_path)
    server.add(Reply(text="alice's answer"), Reply(text="bob's answer"))
    ran = alice.cli("-p", "--model", "openai/x", "--api-base", server.url, "hi from alice")
    assert ran.returncode == 0, ran.stderr
    assert alice.cli("push").returncode == 0
    assert bob.cli("pull").returncode == 0
    refused = bob.cli("-p", "-c", "hi from bob")
    assert refused.returncode == 1 and refused.stdout == ""
    assert f"its model openai/x was reached at {server.url}" in refused.stderr
    assert f"pass --api-base {server.url}" in refused.stderr
    assert asked(server) == ["hi from alice"], "nothing was sent to the pulled endpoint"
    agreed = bob.cli("-p", "-c", "--api-base", server.url, "hi from bob")
    assert (agreed.returncode, agreed.stdout) == (0, "bob's answer\n"), agreed.stderr
    assert asked(server) == ["hi from alice", "hi from bob"]
