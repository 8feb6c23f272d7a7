"""Compaction logic: what the model sees after a summary, where history is cut, what is carried."""

from __future__ import annotations

from workbench.agent import compaction_plan
from workbench.agent.compaction_plan import build_context, plan_compaction, summary_message
from workbench.messages import Message, ToolCall, Usage


def msg(role: str, text: str = "", **fields) -> Message:
    return Message(role=role, text=text, **fields)  # type: ignore[arg-type]


def call(name: str, path: str, call_id: str) -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments={"path": path})


def test_context_is_summary_then_kept_messages_then_the_rest() -> None:
    old, kept, newer = msg("user", "old"), msg("user", "kept"), msg("user", "newer")
    summary = msg("compaction", "S", details={"first_kept_id": kept.id})
    assert build_context([old, kept, summary, newer]) == [summary, kept, newer]
    assert build_context([old, kept]) == [old, kept]


def test_a_later_summary_replaces_the_earlier_one() -> None:
    a, b, c = msg("user", "a"), msg("user", "b"), msg("user", "c")
    first = msg("compaction", "S1", details={"first_kept_id": b.id})
    second = msg("compaction", "S2", details={"first_kept_id": b.id})
    assert build_context([a, b, first, c, second]) == [second, b, c]


def test_the_cut_never_separates_a_tool_call_from_its_result() -> None:
    ask = msg("user", "read it")
    calling = msg("assistant", tool_calls=[call("read", "big.txt", "c1")])
    result = msg("tool_result", "x" * 400, tool_call_id="c1", tool_name="read")
    answer = msg("assistant", "short")
    plan = plan_compaction([ask, calling, result, answer], keep_recent_tokens=50)
    assert plan is not None
    assert plan.first_kept_id == answer.id, "the cut moved past the tool result"
    assert plan.to_summarize == [ask, calling, result]


def test_nothing_to_compact_when_everything_is_recent() -> None:
    assert plan_compaction([msg("user", "hi"), msg("assistant", "hello")], 1000) is None


def test_files_read_and_modified_are_tracked_across_compactions() -> None:
    messages = [
        msg("user", "go"),
        msg("assistant", tool_calls=[call("read", "a.py", "1"), call("read", "b.py", "2")]),
        msg("assistant", tool_calls=[call("edit", "b.py", "3")]),
        msg("user", "x" * 400),
    ]
    plan = plan_compaction(messages, keep_recent_tokens=50)
    assert plan is not None
    assert (plan.read_files, plan.modified_files) == (["a.py"], ["b.py"])
    first = summary_message(plan, "## Goal\nship it", tokens_before=900)
    assert first.text.endswith(
        "<read-files>\na.py\n</read-files>\n\n<modified-files>\nb.py\n</modified-files>"
    )
    later = [*messages, first, msg("assistant", tool_calls=[call("write", "c.py", "4")])]
    later.append(msg("user", "y" * 400))
    second = plan_compaction(later, keep_recent_tokens=50)
    assert second is not None
    assert (second.read_files, second.modified_files) == (["a.py"], ["b.py", "c.py"])
    assert second.previous_summary == "## Goal\nship it"


def test_an_update_request_carries_the_previous_summary_and_keeps_goals() -> None:
    plan = compaction_plan.CompactionPlan([msg("user", "more work")], None, "## Goal\nA and B")
    request = compaction_plan.summary_request(plan, "the API notes", max_tokens=1000)
    prompt = request.messages[0].text
    assert "<previous-summary>\n## Goal\nA and B\n</previous-summary>" in prompt
    assert "Keep every goal of the previous summary" in prompt
    assert prompt.endswith("Pay particular attention to: the API notes")
    assert request.purpose == "summary" and request.tools == []
    first = compaction_plan.summary_request(
        plan.__class__([msg("user", "x")], None, None), None, 10
    )
    sections = ["## Goal", "## Constraints & Preferences", "## Progress", "### Done"]
    sections += ["### In Progress", "### Blocked", "## Key Decisions", "## Next Steps"]
    sections += ["## Critical Context"]
    positions = [first.messages[0].text.index(s) for s in sections]
    assert positions == sorted(positions), "goal first, then the other sections in order"


def test_context_tokens_use_fresh_usage_and_estimate_the_rest() -> None:
    reply = msg("assistant", "ok", usage=Usage(input_tokens=900, output_tokens=100))
    reply.stop_reason = "stop"
    trailing = msg("tool_result", "x" * 400)
    assert compaction_plan.context_tokens([msg("user", "q"), reply, trailing]) == 1100
    summary = msg("compaction", "s" * 40, details={"first_kept_id": None})
    after = [msg("user", "q"), reply, summary, msg("user", "z" * 8)]
    assert compaction_plan.context_tokens(after, overhead=5) == 5 + 10 + 2, "stale usage ignored"


def test_a_whole_branch_plan_summarises_everything_and_updates_an_earlier_summary() -> None:
    messages = [msg("user", "go"), msg("assistant", tool_calls=[call("read", "a.py", "1")])]
    whole = compaction_plan.whole_plan(messages)
    assert (whole.to_summarize, whole.first_kept_id, whole.previous_summary) == (
        messages,
        None,
        None,
    )
    summary = msg(
        "compaction",
        "S",
        details={"summary_body": "## Goal\nship it", "first_kept_id": None, "read_files": ["a.py"]},
    )
    later = [*messages, summary, msg("assistant", tool_calls=[call("write", "b.py", "2")])]
    update = compaction_plan.whole_plan(later)
    assert update.to_summarize == later[3:]
    assert update.previous_summary == "## Goal\nship it"
    assert (update.read_files, update.modified_files) == (["a.py"], ["b.py"])
    request = compaction_plan.summary_request(update, None, 1000).messages[0].text
    assert "<previous-summary>\n## Goal\nship it" in request
