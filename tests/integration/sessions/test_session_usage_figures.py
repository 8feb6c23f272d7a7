"""Usage as servers and other people's sessions really give it: none at all, `null`, strings and
fractions, negative numbers. What can be read is counted, the rest makes the cost "unknown" (never
$0.0000, never negative), and a reply is never lost over its usage. The local SSE server, real
`workbench` processes, a real bare remote for the pulled session."""

from __future__ import annotations

from pathlib import Path

from support.openai_server import OpenAIServer, Reply
from support.session_entries import cli, make_project, run, user
from support.team_remote import make_team

from workbench.sessions.session import Session


def model(server: OpenAIServer) -> tuple[str, ...]:
    return ("--model", "openai/m", "--api-base", server.url, "--api-key", "k")


def test_a_server_that_reports_no_usage_leaves_the_cost_unknown_everywhere(
    tmp_path: Path, server: OpenAIServer
) -> None:
    project = make_project(tmp_path / "project")
    server.add(Reply(text="first answer", usage=None), Reply(text="tried it", null_usage=True))
    asked = cli(project, "-p", *model(server), "first question")
    assert asked.returncode == 0 and asked.stdout == "first answer\n", asked.stderr
    assert cli(project, "fork", "exp").returncode == 0
    tried = cli(project, "-p", "-c", "--branch", "exp", *model(server), "try it")
    assert tried.returncode == 0 and tried.stdout == "tried it\n", tried.stderr

    tree = cli(project, "tree")
    status = cli(project, "status")
    merged = cli(project, "merge", "exp")
    for done in (tree, status, merged):
        assert done.returncode == 0, done.stderr
        assert "$0.0000" not in done.stdout, done.stdout
    assert "[cost unknown in all]" in tree.stdout and "exp from main  [cost unknown]" in tree.stdout
    assert "cost: unknown · " in status.stdout and "cost unknown" not in status.stdout
    assert "the experiment's cost is unknown" in merged.stdout


def test_usage_given_as_strings_or_fractions_never_costs_the_reply(
    tmp_path: Path, server: OpenAIServer
) -> None:
    project = make_project(tmp_path / "project")
    server.add(
        Reply(text="kept", usage={"prompt_tokens": "12", "completion_tokens": 1.5}),
        Reply(text="counted", usage={"prompt_tokens": "12", "completion_tokens": "3"}),
    )
    first = cli(project, "-p", *model(server), "one")
    assert first.returncode == 0 and first.stdout == "kept\n", first.stderr
    second = cli(project, "-p", "-c", *model(server), "two")
    assert second.returncode == 0 and second.stdout == "counted\n", second.stderr
    status = cli(project, "status")
    assert "cost: unknown · 12 in / 3 out" in status.stdout, status.stdout


def test_negative_figures_in_a_pulled_session_are_never_shown(tmp_path: Path) -> None:
    _, alice, bob = make_team(tmp_path)
    hand_written = {
        "role": "assistant",
        "text": "cheap",
        "usage": {"input_tokens": -5000, "output_tokens": "7", "cost": -12.5, "extra": 1},
    }
    with Session.create(alice.clone) as session:
        run(session.store.append("user", user("how much?")))
        run(session.store.append("assistant", hand_written))
        sid = session.id
    assert alice.cli("push").returncode == 0
    assert bob.cli("pull").returncode == 0
    tree = bob.cli("tree", "--session", sid)
    status = bob.cli("status", "--session", sid)
    for done in (tree, status):
        assert done.returncode == 0, done.stderr
        assert "-12.5" not in done.stdout and "-5000" not in done.stdout, done.stdout
    assert "[cost unknown in all]" in tree.stdout
    assert "cost: unknown · 0 in / 7 out" in status.stdout
