"""Workbench on a stored session: resume, new sessions, navigation, and the enforcer's state
derived from the log wherever the session goes."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.opened_workbench import read, script, texts

from workbench.errors import UsageError, WorkbenchError
from workbench.sessions.session import Session

COMPOUND = ".pi/skills/publish-report/SKILL.md"
MOLECULE = ".pi/skills/gather-sources/SKILL.md"


async def test_a_conversation_is_stored_and_resumed_by_latest_id_and_branch(
    project: Path, tmp_path: Path, opened
) -> None:
    first = await opened(project, script(tmp_path, [{"text": "one"}, {"text": "two"}]))
    assert await first.run("first question") == "completed"
    await first.wb.fork("exp")
    assert await first.run("on the branch") == "completed"
    session_id = first.wb.state().session_id
    await first.wb.close()

    latest = await opened(project, script(tmp_path, []), continue_session=True)
    assert latest.wb.state().session_id == session_id
    assert latest.wb.state().branch == "exp"  # where the session was left
    assert texts(latest.wb, "user") == ["first question", "on the branch"]
    assert latest.wb.state().cwd == str(latest.wb.current.session.workspace("exp"))
    await latest.wb.close()

    on_main = await opened(project, script(tmp_path, []), session_id=session_id[:6], branch="main")
    assert on_main.wb.state().branch == "main"
    assert texts(on_main.wb, "user") == ["first question"]
    assert texts(on_main.wb, "assistant") == ["one"]
    assert on_main.wb.state().cwd == str(project)


async def test_a_second_workbench_on_the_same_session_is_refused_by_name(
    project: Path, tmp_path: Path, opened
) -> None:
    first = await opened(project, script(tmp_path, [{"text": "hi"}]))
    await first.run("hello")
    with pytest.raises(WorkbenchError, match=r"open in another process: pid \d+"):
        await opened(project, script(tmp_path, []), continue_session=True)


async def test_no_session_keeps_memory_only_and_cannot_resume(
    project: Path, tmp_path: Path, opened
) -> None:
    from workbench.agent.store import MemoryStore

    memory = await opened(project, script(tmp_path, [{"text": "hi"}]), store=MemoryStore())
    await memory.run("hello")
    assert memory.wb.current.session is None and memory.wb.list_sessions() == []
    with pytest.raises(UsageError, match="--no-session"):
        await memory.wb.fork("exp")
    with pytest.raises(UsageError, match="--no-session cannot resume"):
        await opened(project, "demo", store=MemoryStore(), continue_session=True)


async def test_new_session_and_resume_swap_the_conversation_and_the_lock(
    project: Path, tmp_path: Path, opened
) -> None:
    session = await opened(project, script(tmp_path, [{"text": "a"}, {"text": "b"}]))
    await session.run("in the first session")
    first_id = session.wb.state().session_id

    await session.wb.new_session()
    assert session.wb.messages() == []
    second_id = session.wb.state().session_id
    assert second_id != first_id
    with Session.open(project, first_id) as other:  # the first session's lock was released
        assert [e.type for e in other.store.path()] == ["user", "assistant"]
    await session.run("in the second session")

    await session.wb.resume(first_id[:5])
    assert texts(session.wb, "user") == ["in the first session"]
    assert [info.id for info in session.wb.list_sessions()] == [second_id, first_id]
    assert [e.reason for e in session.of("tree_update")] == ["new", "resume"]


async def test_navigating_back_and_going_on_starts_a_new_branch_with_a_summary(
    project: Path, tmp_path: Path, opened
) -> None:
    turns = [{"text": "plan A"}, {"text": "A failed"}, {"text": "plan B"}]
    summary = "## Goal\nTry plan A\n\n## Progress\nA failed: the parser rejects it"
    session = await opened(project, script(tmp_path, turns, [summary]))
    await session.run("try plan A")
    await session.run("does it work?")
    first_reply = session.wb.current.session.store.path()[1]

    result = await session.wb.navigate(first_reply.id[:8], summarize=True)
    assert result.summary is not None and result.branch == "main-1"
    assert not result.detached  # the summary began the branch: its head is where we are
    assert texts(session.wb, "branch_summary")[0].startswith("## Goal\nTry plan A")
    await session.run("try plan B instead")

    tree = await session.wb.tree()
    assert {b.name: b.parent_branch for b in tree.branches} == {"main": None, "main-1": "main"}
    assert session.wb.state().branch == "main-1"
    assert texts(session.wb, "user") == ["try plan A", "try plan B instead"]
    assert texts(session.wb, "assistant") == ["plan A", "plan B"]
    assert [e.reason for e in session.of("tree_update")] == ["navigate"]


async def test_navigating_without_summary_then_continuing_says_a_branch_began(
    project: Path, tmp_path: Path, opened
) -> None:
    session = await opened(project, script(tmp_path, [{"text": "1"}, {"text": "2"}, {"text": "3"}]))
    await session.run("first")
    await session.run("second")
    await session.wb.navigate(session.wb.current.session.store.path()[1].id)
    assert texts(session.wb, "user") == ["first"]
    await session.run("instead")
    updates = [(e.reason, e.branch) for e in session.of("tree_update")]
    assert updates == [("navigate", "main"), ("continue", "main-1")]


async def test_the_loading_state_follows_navigate_fork_and_resume(
    project: Path, tmp_path: Path, opened
) -> None:
    turns = [read(COMPOUND), {"text": "compound read"}, read(MOLECULE), {"text": "molecule read"}]
    session = await opened(project, script(tmp_path, turns))
    await session.run("publish a report")
    after_compound = session.wb.current.session.store.path()[-1].id
    await session.run("gather the sources")
    assert session.wb.loading_state().loaded == {
        "publish-report": "compound",
        "gather-sources": "molecule",
    }

    await session.wb.navigate(after_compound)
    assert session.wb.loading_state().loaded == {"publish-report": "compound"}
    assert "gather-sources" not in session.wb.skills_status()

    await session.wb.switch_branch("main")
    assert set(session.wb.loading_state().loaded) == {"publish-report", "gather-sources"}

    await session.wb.fork("early", at=after_compound)
    assert session.wb.loading_state().active_compound == "publish-report"
    assert list(session.wb.loading_state().loaded) == ["publish-report"]
    session_id = session.wb.state().session_id
    status_before = session.wb.skills_status()
    await session.wb.close()

    resumed = await opened(project, script(tmp_path, []), session_id=session_id)
    assert resumed.wb.state().branch == "early"
    assert resumed.wb.skills_status() == status_before
    await resumed.wb.switch_branch("main")
    assert [r.skill for r in resumed.wb.loading_state().history] == [
        "publish-report",
        "gather-sources",
    ]


async def test_tree_changes_wait_for_the_run_to_end(project: Path, tmp_path: Path, opened) -> None:
    slow = {"text": "a slow reply " * 20, "delay_ms": 20}
    session = await opened(project, script(tmp_path, [slow, {"text": "quick"}]))
    await session.wb.prompt("take your time")
    for change in (session.wb.fork("exp"), session.wb.label("here"), session.wb.new_session()):
        with pytest.raises(WorkbenchError, match="the agent is working"):
            await change
    assert (await session.wb.tree()).current_branch == "main"  # reading is fine meanwhile
    assert await session.wb.wait_idle() == "completed"
    await session.wb.label("after the slow reply")
    tree = await session.wb.tree()
    assert [e.labels for e in tree.entries if e.labels] == [["after the slow reply"]]


async def test_activation_by_the_user_goes_with_the_next_prompt_and_stays_in_the_log(
    project: Path, tmp_path: Path, opened
) -> None:
    session = await opened(project, script(tmp_path, [{"text": "following it"}]))
    await session.wb.activate("publish-report")
    [notice] = [e for e in session.of("notice") if e.text.startswith("activated")]
    assert notice.text == ("activated publish-report: the model is told with your next message")
    await session.run("make the report")
    carried = [m for m in session.wb.messages() if m.role == "notice"]
    assert len(carried) == 1 and "publish-report" in carried[0].text
    assert carried[0].details["skill_load"]["how"] == "command"
    assert session.wb.loading_state().active_compound == "publish-report"

    with pytest.raises(WorkbenchError, match="There is no skill named `publish-reprot`") as bad:
        await session.wb.activate("publish-reprot")
    assert "Did you mean: publish-report" in bad.value.message
    await session.wb.deactivate("publish-report")
    assert "publish-report" not in session.wb.loading_state().loaded
    with pytest.raises(WorkbenchError, match="`gather-sources` is not active"):
        await session.wb.deactivate("gather-sources")

    session_id = session.wb.state().session_id
    await session.wb.close()
    resumed = await opened(project, script(tmp_path, []), session_id=session_id)
    # the deactivation waited for a next prompt that never came: the log still has the activation
    assert resumed.wb.loading_state().active_compound == "publish-report"
