"""The translation of workbench events and messages into ACP session updates (pure: no client)."""

from __future__ import annotations

from pathlib import Path

from support.skill_trees import write_tree

from workbench.agent.events import (
    MessageEnd,
    MessageUpdate,
    Notice,
    ToolExecutionEnd,
    ToolExecutionStart,
)
from workbench.enforcer.state import LoadingState, LoadRecord
from workbench.messages import Message, ToolCall
from workbench.modes.acp_updates import Translator, kind_of, plan, replay, title_of
from workbench.tool import ToolResult


def test_each_tool_has_its_kind_and_a_title():
    assert [kind_of(n) for n in ("read", "edit", "write", "bash", "subagent", "x")] == [
        "read",
        "edit",
        "edit",
        "execute",
        "other",
        "other",
    ]
    assert title_of("read", {"path": "a.py"}) == "Read a.py"
    assert title_of("bash", {"command": "pytest -x\necho done"}) == "Run `pytest -x`"
    assert title_of("skill_activate", {"name": "outline"}) == "skill_activate outline"


def test_live_events_become_chunks_and_a_tool_call_with_its_diff(tmp_path: Path):
    (tmp_path / "a.txt").write_text("old\n")
    translator = Translator()
    reply = Message(role="assistant")
    text = translator.updates(MessageUpdate(reply, "Hi", "text"), tmp_path)
    thought = translator.updates(MessageUpdate(reply, "hmm", "thinking"), tmp_path)
    assert [(u.session_update, u.content.text) for u in [*text, *thought]] == [
        ("agent_message_chunk", "Hi"),
        ("agent_thought_chunk", "hmm"),
    ]
    args = {"path": "a.txt", "content": "new\n"}
    [start] = translator.updates(ToolExecutionStart("w1", "write", args), tmp_path)
    assert (start.kind, start.status, start.locations[0].path) == (
        "edit",
        "in_progress",
        str(tmp_path / "a.txt"),
    )
    assert translator.running_tool() == "w1"
    (tmp_path / "a.txt").write_text("new\n")
    result = ToolResult("wrote a.txt", details={"created": False})
    [end] = translator.updates(ToolExecutionEnd("w1", "write", args, result), tmp_path)
    diff = end.content[0]
    assert (end.status, diff.type, diff.old_text, diff.new_text) == (
        "completed",
        "diff",
        "old\n",
        "new\n",
    )
    assert translator.running_tool() is None


def test_a_skipped_call_is_announced_and_failed_and_the_stop_is_noted(tmp_path: Path):
    translator = Translator()
    skipped = ToolExecutionEnd(
        "c2", "bash", {"command": "ls"}, ToolResult("Skipped", True), 0, True
    )
    start, end = translator.updates(skipped, tmp_path)
    assert (start.session_update, end.status) == ("tool_call", "failed")
    cut = Message(role="assistant", text="half", stop_reason="length")
    assert translator.updates(MessageEnd(cut), tmp_path) == []
    assert translator.max_tokens is True
    [note] = translator.updates(Notice("compacted"), tmp_path)
    assert "compacted" in note.content.text


def test_replay_shows_the_branch_with_each_load_in_its_tool_call(tmp_path: Path):
    load = LoadRecord("outline", "atom", "violation", "read", reason="not delegated")
    messages = [
        Message(role="user", text="go"),
        Message(
            role="assistant",
            text="reading",
            tool_calls=[ToolCall("r1", "read", {"path": "SKILL.md"})],
        ),
        Message(
            role="tool_result",
            text="# outline",
            tool_call_id="r1",
            tool_name="read",
            details={"skill_load": load.to_dict()},
        ),
        Message(role="assistant", text="done"),
    ]
    updates = replay(messages, tmp_path)
    assert [u.session_update for u in updates] == [
        "user_message_chunk",
        "agent_message_chunk",
        "tool_call",
        "tool_call_update",
        "agent_message_chunk",
    ]
    lines = [c.content.text for c in updates[3].content]
    assert lines == ["# outline", "Skill load: atom outline (violation): not delegated"]
    assert updates[3].raw_output["skill_loads"][0]["skill"] == "outline"


def test_the_plan_runs_from_compound_to_atom(tmp_path: Path):
    graph = write_tree(tmp_path / "skills")
    state = LoadingState()
    state.apply(LoadRecord("publish-report", "compound", "ok", "read"))
    state.apply(LoadRecord("gather-sources", "molecule", "ok", "read", via="publish-report"))
    state.apply(LoadRecord("fetch-url", "atom", "ok", "read", via="gather-sources"))
    entries = [(e.content, e.status, e.priority) for e in plan(state, graph)]
    assert entries == [
        ("compound publish-report", "in_progress", "high"),
        ("molecule gather-sources", "in_progress", "medium"),
        ("atom fetch-url", "in_progress", "low"),
    ]
    assert plan(LoadingState(), graph) == []
