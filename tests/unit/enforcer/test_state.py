"""The loading state: replaying the records of a branch's messages gives the run's state."""

from __future__ import annotations

from workbench.enforcer.state import LoadingState, LoadRecord, records_of
from workbench.messages import Message


def result(*records: LoadRecord, **extra) -> Message:
    details = {"skill_load": records[0].to_dict()} if records else {}
    if len(records) > 1:
        details["skill_loads"] = [r.to_dict() for r in records]
    details.update(extra)
    return Message(role="tool_result", text="...", details=details)


C = LoadRecord("publish-report", "compound", "ok", "read", time=1.0)
M = LoadRecord("gather-sources", "molecule", "ok", "read", time=2.0, via="publish-report")
A = LoadRecord("fetch-url", "atom", "ok", "bash", time=3.0, via="gather-sources")
BAD = LoadRecord("outline", "atom", "violation", "read", time=4.0, reason="skipped", blocked=True)


def test_derive_replays_loads_in_order():
    state = LoadingState.derive(
        [Message(role="user", text="go"), result(C), result(M, A), result(BAD)]
    )
    assert state.loaded == {
        "publish-report": "compound",
        "gather-sources": "molecule",
        "fetch-url": "atom",
    }
    assert state.chain == ["publish-report", "gather-sources", "fetch-url"]
    assert state.active_compound == "publish-report"
    assert [r.skill for r in state.history] == [
        "publish-report",
        "gather-sources",
        "fetch-url",
        "outline",
    ]
    assert [r.skill for r in state.violations] == ["outline"]
    assert "outline" not in state.loaded  # a refused load did not happen


def test_round_trip_through_message_dicts_keeps_the_state():
    messages = [result(C), result(M), result(A)]
    again = [Message.from_dict(m.to_dict()) for m in messages]
    assert LoadingState.derive(again) == LoadingState.derive(messages)


def test_deactivation_and_activation_records():
    activated = LoadRecord("run-tests", "atom", "ok", "activate", standalone=True)
    state = LoadingState.derive(
        [
            result(C),
            result(M),
            result(activated),
            Message(role="tool_result", details={"skill_deactivate": {"skill": "gather-sources"}}),
        ]
    )
    assert "gather-sources" not in state.loaded
    assert state.activated == {"run-tests"}
    assert state.chain == ["run-tests"]


def test_deactivating_the_compound_clears_the_active_compound():
    state = LoadingState.derive([result(C), result(M)])
    state.deactivate("publish-report")
    assert state.active_compound is None and state.chain == []


def test_a_compaction_forgets_recent_loads_but_not_what_is_loaded():
    state = LoadingState.derive([result(C), Message(role="compaction", text="summary")])
    assert "publish-report" in state.loaded
    assert list(state.recent) == []


def test_malformed_records_are_ignored():
    message = Message(role="tool_result", details={"skill_load": {"skill": "x"}})
    assert records_of(message) == []
    message = Message(role="tool_result", details={"skill_loads": ["nonsense", C.to_dict()]})
    assert [r.skill for r in records_of(message)] == ["publish-report"]


def test_the_repeat_window_holds_ten_loads():
    state = LoadingState()
    for n in range(12):
        state.apply(LoadRecord(f"s{n}", None, "ok", "read"))
    assert list(state.recent) == [f"s{n}" for n in range(2, 12)]
