"""The headless subcommands as scripts use them: output, JSON shape and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from support.session_entries import assistant, cli, git, run, user

from workbench.sessions.session import Session


def _two_sessions(project: Path) -> tuple[str, str, list[str]]:
    with Session.create(project) as older:
        run(older.store.append("user", user("the older session")))
        older_id = older.id
    with Session.create(project) as newer:
        ids = [
            run(newer.store.append("user", user("rename the module"))).id,
            run(newer.store.append("assistant", assistant("renamed"))).id,
        ]
        newer_id = newer.id
    return older_id, newer_id, ids


def test_sessions_lists_names_and_last_activity_newest_first(project: Path) -> None:
    older_id, newer_id, _ = _two_sessions(project)
    done = cli(project, "sessions", "--format", "json")
    assert done.returncode == 0
    listed = json.loads(done.stdout)
    assert [s["id"] for s in listed] == [newer_id, older_id]
    assert [s["name"] for s in listed] == ["rename the module", "the older session"]
    assert listed[0]["last_activity"] >= listed[1]["last_activity"]
    assert listed[0]["branches"] == ["main"]

    text = cli(project, "sessions").stdout.splitlines()
    assert text[0].startswith(newer_id)
    assert text[0].endswith("1 branch  2 entries  rename the module  by Test User")


def test_tree_json_has_the_documented_shape(project: Path) -> None:
    _, newer_id, ids = _two_sessions(project)
    assert cli(project, "fork", "idea", "--at", ids[0][:8]).returncode == 0
    done = cli(project, "tree", "--format", "json")
    assert done.returncode == 0, done.stderr
    tree = json.loads(done.stdout)
    assert tree["session"] == newer_id
    assert tree["current"] == {"branch": "idea", "entry": ids[0]}
    branches = [
        (b["name"], b["head"], b["fork_entry"], b["parent_branch"]) for b in tree["branches"]
    ]
    assert branches == [("main", ids[1], None, None), ("idea", ids[0], ids[0], "main")]
    assert tree["entries"] == [
        {"id": ids[0], "parent": None, "type": "user", "branch": "main",
         "text": "rename the module", "labels": []},
        {"id": ids[1], "parent": ids[0], "type": "assistant", "branch": "main",
         "text": "renamed", "labels": []},
    ]  # fmt: skip


def test_tree_text_navigate_and_label_from_the_command_line(project: Path) -> None:
    older_id, _, ids = _two_sessions(project)
    assert cli(project, "label", "start", "--at", ids[0][:8]).returncode == 0
    moved = cli(project, "navigate", "start")
    assert moved.returncode == 0
    assert moved.stdout.splitlines()[0] == f"moved to {ids[0][:10]} on main"
    assert "the next message starts a new branch" in moved.stdout

    text = cli(project, "tree").stdout
    assert f"{ids[0][:10]} user: rename the module  [start]  <- you are here" in text
    assert "label: start ->" in text

    back = cli(project, "navigate", "--branch", "main")
    assert back.returncode == 0 and back.stdout.startswith("on main at ")
    other = cli(project, "tree", "--session", older_id[:6])
    assert "user: the older session" in other.stdout


def test_cannot_run_answers_exit_2_with_a_hint(project: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = cli(empty, "tree")
    assert nothing.returncode == 2
    assert "no sessions in" in nothing.stderr and "hint:" in nothing.stderr

    _two_sessions(project)
    unknown = cli(project, "status", "--session", "zzzz")
    assert unknown.returncode == 2 and "no session 'zzzz'" in unknown.stderr
    no_branch = cli(project, "status", "nope")
    assert no_branch.returncode == 2 and "no branch 'nope'" in no_branch.stderr
    bad_entry = cli(project, "navigate", "0000000")
    assert bad_entry.returncode == 2 and "no entry '0000000'" in bad_entry.stderr
    main_merge = cli(project, "merge", "main")
    assert main_merge.returncode == 2 and "main has no parent branch" in main_merge.stderr


def test_each_checkout_of_a_repository_has_its_own_sessions(project: Path, tmp_path: Path) -> None:
    second = tmp_path / "second-checkout"
    git(project, "worktree", "add", "--quiet", "-b", "other", str(second))
    with Session.create(project) as first_session:
        run(first_session.store.append("user", user("in the first checkout")))
        run(first_session.fork("exp"))
        fork_dir = first_session.workspace()
        first_id = first_session.id
    with Session.create(second) as second_session:
        run(second_session.store.append("user", user("in the second checkout")))

    listed = json.loads(cli(project, "sessions", "--format", "json").stdout)
    assert [s["name"] for s in listed] == ["in the first checkout"]
    listed = json.loads(cli(second, "sessions", "--format", "json").stdout)
    assert [s["name"] for s in listed] == ["in the second checkout"]

    # From inside a fork's worktree (where the agent's tools run) it is the same session, and
    # main still works in the checkout the session started in.
    (fork_dir / "feature.txt").write_text("made in the fork\n")
    assert cli(fork_dir, "commit", "-m", "add feature").returncode == 0
    status = json.loads(cli(fork_dir, "status", "main", "--format", "json").stdout)
    assert status["worktree"] == str(project.resolve())
    merged = cli(fork_dir, "merge", "exp")
    assert merged.returncode == 0, merged.stderr
    assert (project / "feature.txt").read_text() == "made in the fork\n"
    assert not (second / "feature.txt").exists()
    tree = json.loads(cli(fork_dir, "tree", "--format", "json").stdout)
    assert tree["session"] == first_id


def test_navigate_and_merge_with_summarize_ask_the_sessions_model(project: Path) -> None:
    def model(summary: str, name: str) -> list[str]:
        (project / name).write_text(json.dumps({"turns": [], "summaries": [summary]}))
        return ["--model", f"scripted:{project / name}"]

    with Session.create(project) as session:
        first = run(session.store.append("user", user("rename the module")))
        run(session.store.append("assistant", assistant("renamed")))
        run(session.fork("exp"))
        run(session.store.append("user", user("try the exp idea")))
        run(session.store.append("assistant", assistant("tried it")))

    left = model("## Goal\nrename the module, then stop", "left.json")
    moved = cli(project, "navigate", first.id[:8], "--summarize", *left)
    assert moved.returncode == 0, moved.stderr
    back = model("## Goal\nthe exp idea worked", "back.json")
    merged = cli(project, "merge", "exp", "--summarize", "--keep-worktree", *back)
    assert merged.returncode == 0, merged.stderr

    with Session.open(project, readonly=True) as session:
        entries = {e.type: e for e in session.store.all_entries()}
    assert "rename the module, then stop" in json.dumps(entries["branch_summary"].payload)
    assert "the exp idea worked" in json.dumps(entries["merge"].payload)
