"""Moving through the tree: jumps persist, continuing from an old entry branches, nothing lost."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.session_entries import assistant, run, user

from workbench.errors import UsageError
from workbench.messages import Message
from workbench.sessions.session import Session


def _conversation(session: Session, turns: int) -> list[str]:
    ids = []
    for n in range(turns):
        ids.append(run(session.store.append("user", user(f"question {n}"))).id)
        ids.append(run(session.store.append("assistant", assistant(f"answer {n}"))).id)
    return ids


def test_continuing_from_an_old_entry_starts_a_new_branch_and_keeps_the_old_one(
    project: Path,
) -> None:
    with Session.create(project) as session:
        ids = _conversation(session, 3)
        result = run(session.navigate(ids[1][:8]))
        assert result.detached and result.entry.id == ids[1]
        assert [e.id for e in session.store.path()] == ids[:2]

        new = run(session.store.append("user", user("a different question")))
        assert session.store.branch == "main-1"
        assert new.parent == ids[1]
        record = session.store.record("main-1")
        assert (record.parent, record.fork_entry) == ("main", ids[1])
        assert session.store.head("main") == ids[-1]
        tree = run(session.tree()).to_json()

    branches = {b["name"]: b for b in tree["branches"]}
    assert branches["main"]["head"] == ids[-1]
    assert branches["main-1"].pop("usage")["calls"] == 0, "no model call on it yet"
    assert branches["main-1"] == {
        "name": "main-1",
        "head": new.id,
        "fork_entry": ids[1],
        "parent_branch": "main",
        "worktree": None,
    }
    assert tree["current"] == {"branch": "main-1", "entry": new.id}
    assert {e["id"] for e in tree["entries"]} == {*ids, new.id}


def test_automatic_branch_names_never_overwrite_an_existing_branch(project: Path) -> None:
    with Session.create(project) as session:
        ids = _conversation(session, 2)
        run(session.fork("main-1", at=ids[0]))
        run(session.navigate(ids[1]))
        run(session.store.append("user", user("again")))
        assert session.store.branch == "main-2"
        assert session.store.head("main-1") == ids[0]


def test_continuing_from_an_old_entry_of_a_long_named_branch_still_works(project: Path) -> None:
    longest = "b" * 64
    with Session.create(project) as session:
        run(session.store.append("user", user("first")))
        run(session.fork(longest))
        older = run(session.store.append("user", user("on the long branch"))).id
        run(session.store.append("assistant", assistant("an answer")))
        run(session.navigate(older))
        run(session.store.append("user", user("another way")))
        assert session.store.branch == "b" * 62 + "-1"
        assert session.store.record(session.store.branch).parent == longest


def test_a_jump_survives_a_restart(project: Path) -> None:
    with Session.create(project) as session:
        ids = _conversation(session, 3)
        run(session.navigate(ids[2]))
        session_id = session.id
    with Session.open(project, session_id) as reopened:
        assert reopened.store.position_entry() == ids[2]
        assert [e.id for e in reopened.store.path()] == ids[:3]
        run(reopened.store.append("user", user("from the old entry")))
        assert reopened.store.branch == "main-1"


def test_navigation_can_record_a_summary_of_the_path_left_behind(project: Path) -> None:
    seen: list[list[Message]] = []

    async def summarize(messages: list[Message]) -> str:
        seen.append(messages)
        return "Goal: answer the questions. Tried: answers 1 and 2."

    with Session.create(project) as session:
        ids = _conversation(session, 3)
        result = run(session.navigate(ids[1], summarize))
        path = session.store.path()

    assert [m.text for m in seen[0]] == ["question 1", "answer 1", "question 2", "answer 2"]
    assert [e.id for e in result.abandoned] == ids[2:]
    assert result.summary is not None and result.summary.type == "branch_summary"
    assert result.summary.branch == "main-1"
    assert path[-1].payload["text"].startswith("Goal: answer the questions.")
    assert path[-1].payload["details"] == {"abandoned_head": ids[-1], "entries": 4}
    assert [e.id for e in path[:-1]] == ids[:2]
    assert (result.branch, result.detached) == ("main-1", False), "the summary started main-1"
    assert result.render_text() == (
        f"moved to {ids[1][:10]} on main\n"
        f"recorded a summary of the 4 entries left behind ({result.summary.id[:10]} on main-1)"
    )


def test_labels_name_entries_show_in_the_tree_and_can_be_navigated_to(project: Path) -> None:
    with Session.create(project) as session:
        ids = _conversation(session, 2)
        run(session.label("before-refactor", target=ids[1]))
        run(session.label("latest"))
        tree = run(session.tree())
        result = run(session.navigate("before-refactor"))

    entries = {e.id: e for e in tree.entries}
    assert entries[ids[1]].labels == ["before-refactor"]
    assert entries[ids[3]].labels == ["latest"]
    assert "[before-refactor]" in tree.render_text()
    assert result.entry.id == ids[1]


def test_resume_by_branch_and_by_session_prefix(project: Path) -> None:
    with Session.create(project) as first:
        _conversation(first, 1)
        run(first.fork("idea"))
        run(first.store.append("user", user("on the idea branch")))
        run(first.switch_branch("main"))
        first_id = first.id
    with Session.create(project) as second:
        run(second.store.append("user", user("a newer session")))
        second_id = second.id

    with Session.open(project) as latest:
        assert latest.id == second_id
    with Session.open(project, first_id[:6], branch="idea") as resumed:
        assert resumed.store.branch == "idea"
        assert resumed.store.path()[-1].payload["text"] == "on the idea branch"
    with Session.open(project, first_id) as again:
        assert again.store.branch == "idea"
    with pytest.raises(UsageError, match="no branch 'nope'"):
        Session.open(project, first_id, branch="nope")
    with pytest.raises(UsageError, match="no session"):
        Session.open(project, "ffffffff")
