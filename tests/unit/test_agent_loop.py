"""The agent loop in-process with the scripted model: order, steering, follow-up, abort, hooks."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from workbench.agent.costs import UsageTotals
from workbench.agent.events import Event
from workbench.agent.loop import SKIPPED_FOR_STEERING, Agent, AgentConfig, RetryPolicy
from workbench.agent.models.client import Delta, ModelRequest, TextDelta
from workbench.agent.models.scripted import ScriptedModel
from workbench.agent.store import MemoryStore, messages_of
from workbench.agent.tools import builtin_tools
from workbench.errors import WorkbenchError
from workbench.hooks import ContextEvent, HookBus, ToolCallEvent, ToolResultEvent
from workbench.messages import Message
from workbench.tool import Tool, ToolContext, ToolResult


class Recording(ScriptedModel):
    """The scripted model, remembering what each call was sent."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.requests: list[list[Message]] = []

    def stream(self, request: ModelRequest) -> AsyncIterator[Delta]:
        self.requests.append(list(request.messages))
        return super().stream(request)


class Gate:
    """A tool that runs until the test opens the gate, so the test controls timing."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.release = asyncio.Event()
        self.runs: list[str] = []

    def tool(self) -> Tool:
        async def execute(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
            self.runs.append(args["label"])
            self.entered.set()
            await self.release.wait()
            return ToolResult(f"ran {args['label']}")

        schema = {"type": "object", "properties": {"label": {"type": "string"}}}
        return Tool("gate", "waits for the test", schema, execute)


def gate_calls(*labels: str) -> list[dict[str, Any]]:
    return [{"name": "gate", "arguments": {"label": label}} for label in labels]


def setup(
    tmp_path: Path,
    turns: list[dict[str, Any]],
    tools: list[Tool] | None = None,
    config: AgentConfig | None = None,
    bus: HookBus | None = None,
) -> tuple[Agent, Recording, list[Event]]:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(turns))
    model = Recording(script)
    events: list[Event] = []
    agent = Agent(
        model=model,
        tools=tools if tools is not None else builtin_tools(),
        store=MemoryStore(),
        emit=events.append,
        cwd=tmp_path,
        bus=bus,
        config=config,
    )
    return agent, model, events


def user(text: str) -> Message:
    return Message(role="user", text=text)


def types(events: list[Event]) -> list[str]:
    return [e.type for e in events if e.type != "message_update"]


async def test_a_read_then_answer_run_records_every_message_in_order(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("alpha\n")
    turns = [
        {"text": "Reading.", "tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]},
        {"text": "It says alpha."},
    ]
    agent, model, events = setup(tmp_path, turns)
    assert await agent.start([user("what is in notes.txt?")], "system") == "completed"
    stored = messages_of(agent.state.store.path())
    assert [(m.role, m.text) for m in stored] == [
        ("user", "what is in notes.txt?"),
        ("assistant", "Reading."),
        ("tool_result", "alpha"),
        ("assistant", "It says alpha."),
    ]
    assert stored[2].tool_call_id == stored[1].tool_calls[0].id
    assert types(events) == [
        "agent_start",
        "turn_start",
        "message_start",
        "message_end",
        "message_start",
        "message_end",
        "tool_execution_start",
        "tool_execution_end",
        "message_start",
        "message_end",
        "turn_end",
        "turn_start",
        "message_start",
        "message_end",
        "turn_end",
        "agent_end",
    ]
    assert [m.role for m in model.requests[1]] == ["user", "assistant", "tool_result"]


async def test_steering_skips_the_remaining_calls_and_reaches_the_model_next(
    tmp_path: Path,
) -> None:
    gate = Gate()
    turns = [{"tool_calls": gate_calls("a", "b", "c")}, {"text": "Changing course."}]
    agent, model, events = setup(tmp_path, turns, tools=[gate.tool()])
    run = agent.start([user("go")], "system")
    await gate.entered.wait()
    agent.steering.push(user("stop, use the other file"))
    gate.release.set()
    assert await run == "completed"
    assert gate.runs == ["a"]
    results = [m for m in agent.state.messages if m.role == "tool_result"]
    assert [(r.text, r.is_error) for r in results] == [
        ("ran a", False),
        (SKIPPED_FOR_STEERING, True),
        (SKIPPED_FOR_STEERING, True),
    ]
    second_request = model.requests[1]
    assert [m.role for m in second_request] == ["user", "assistant", *["tool_result"] * 3, "user"]
    assert second_request[-1].text == "stop, use the other file"
    skipped = [e for e in events if e.type == "tool_execution_end" and e.skipped]
    assert len(skipped) == 2


@pytest.mark.parametrize(("mode", "per_call"), [("one-at-a-time", [1, 1]), ("all", [2])])
async def test_steering_delivery_mode(tmp_path: Path, mode: str, per_call: list[int]) -> None:
    gate = Gate()
    turns = [{"tool_calls": gate_calls("a")}, {"text": "first"}, {"text": "second"}]
    config = AgentConfig(steering_mode=mode)  # type: ignore[arg-type]
    agent, model, _ = setup(tmp_path, turns, tools=[gate.tool()], config=config)
    run = agent.start([user("go")], "system")
    await gate.entered.wait()
    agent.steering.push(user("one"))
    agent.steering.push(user("two"))
    gate.release.set()
    await run
    delivered = []
    for before, after in zip(model.requests, model.requests[1:], strict=False):
        delivered.append(sum(1 for m in after[len(before) :] if m.role == "user"))
    assert delivered == per_call


async def test_follow_up_waits_until_the_agent_would_stop(tmp_path: Path) -> None:
    gate = Gate()
    turns = [{"tool_calls": gate_calls("a", "b")}, {"text": "done with a and b"}, {"text": "ok"}]
    agent, model, events = setup(tmp_path, turns, tools=[gate.tool()])
    run = agent.start([user("go")], "system")
    await gate.entered.wait()
    agent.follow_ups.push(user("and then tidy up"))
    gate.release.set()
    await run
    assert gate.runs == ["a", "b"]
    assert [m.text for m in model.requests[2][-2:]] == ["done with a and b", "and then tidy up"]
    assert types(events).count("agent_end") == 1


@pytest.mark.parametrize(("mode", "turns_after"), [("one-at-a-time", 2), ("all", 1)])
async def test_follow_up_delivery_mode(tmp_path: Path, mode: str, turns_after: int) -> None:
    gate = Gate()
    turns = [{"tool_calls": gate_calls("a")}, {"text": "done"}, {"text": "x"}, {"text": "y"}]
    config = AgentConfig(follow_up_mode=mode)  # type: ignore[arg-type]
    agent, model, _ = setup(tmp_path, turns, tools=[gate.tool()], config=config)
    run = agent.start([user("go")], "system")
    await gate.entered.wait()
    agent.follow_ups.push(user("one"))
    agent.follow_ups.push(user("two"))
    gate.release.set()
    await run
    assert len(model.requests) == 2 + turns_after
    assert [m.text for m in model.requests[-1] if m.role == "user"] == ["go", "one", "two"]


async def test_starting_while_busy_names_steer_and_follow_up(tmp_path: Path) -> None:
    gate = Gate()
    agent, _, _ = setup(tmp_path, [{"tool_calls": gate_calls("a")}], tools=[gate.tool()])
    run = agent.start([user("go")], "system")
    await gate.entered.wait()
    with pytest.raises(WorkbenchError) as raised:
        agent.start([user("again")], "system")
    assert "steer" in raised.value.hint and "follow_up" in raised.value.hint
    gate.release.set()
    await run


async def test_abort_during_a_stream_records_the_partial_reply(tmp_path: Path) -> None:
    turns = [{"text": "one two three four five six seven eight", "delay_ms": 50}]
    agent, _, events = setup(tmp_path, turns)
    run = agent.start([user("count")], "system")
    while not any(e.type == "message_update" for e in events):
        await asyncio.sleep(0.01)
    await agent.abort()
    assert await run == "aborted"
    stored = messages_of(agent.state.store.path())
    assert [m.role for m in stored] == ["user", "assistant"]
    assert stored[1].stop_reason == "aborted"
    assert stored[1].text.startswith("one") and not stored[1].text.endswith("eight")
    assert events[-1].to_dict() == {"type": "agent_end", "stop_reason": "aborted", "error": None}


async def test_abort_during_a_tool_answers_every_call(tmp_path: Path) -> None:
    gate = Gate()
    agent, _, _ = setup(tmp_path, [{"tool_calls": gate_calls("a", "b")}], tools=[gate.tool()])
    run = agent.start([user("go")], "system")
    await gate.entered.wait()
    await agent.abort()
    assert await run == "aborted"
    results = [m for m in agent.state.messages if m.role == "tool_result"]
    assert [r.text for r in results] == [
        "Aborted by the user while running.",
        "Skipped: the run was aborted by the user.",
    ]


async def test_an_aborted_tool_reports_how_long_it_really_ran(tmp_path: Path) -> None:
    gate = Gate()
    agent, _, events = setup(tmp_path, [{"tool_calls": gate_calls("a", "b")}], tools=[gate.tool()])
    run = agent.start([user("go")], "system")
    await gate.entered.wait()
    await asyncio.sleep(0.3)
    await agent.abort()
    assert await run == "aborted"
    ends = [e for e in events if e.type == "tool_execution_end"]
    assert ends[0].duration_ms >= 300 and not ends[0].skipped, "the aborted call's real time"
    assert ends[1].duration_ms == 0 and ends[1].skipped, "the skipped call never ran"


async def test_an_aborted_turn_ends_with_turn_end_then_agent_end(tmp_path: Path) -> None:
    gate = Gate()
    agent, _, events = setup(tmp_path, [{"tool_calls": gate_calls("a", "b")}], tools=[gate.tool()])
    run = agent.start([user("go")], "system")
    await gate.entered.wait()
    await agent.abort()
    assert await run == "aborted"
    assert types(events)[-2:] == ["turn_end", "agent_end"]
    turn_end, agent_end = (e.to_dict() for e in events[-2:])
    reply = turn_end["message"]
    assert [c["arguments"]["label"] for c in reply["tool_calls"]] == ["a", "b"]
    assert reply["stop_reason"] == "tool_calls", "the reply stays as it was recorded"
    assert [r["text"] for r in turn_end["tool_results"]] == [
        "Aborted by the user while running.",
        "Skipped: the run was aborted by the user.",
    ]
    assert agent_end["stop_reason"] == "aborted"


async def test_a_turn_aborted_before_any_reply_still_ends(tmp_path: Path) -> None:
    config = AgentConfig(retry=RetryPolicy(max_retries=3, base_delay_s=60))
    agent, _, events = setup(tmp_path, [{"error": "rate_limit"}], config=config)
    run = agent.start([user("go")], "system")
    while not any(e.type == "retry_start" for e in events):
        await asyncio.sleep(0.01)
    await agent.abort()
    assert await run == "aborted"
    assert types(events)[-3:] == ["retry_end", "turn_end", "agent_end"]
    nothing = {"type": "turn_end", "message": None, "tool_results": []}
    assert events[-2].to_dict() == {**nothing, "usage": UsageTotals().to_json()}


async def test_hooks_block_patch_and_reshape_the_context(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("hidden\n")
    (tmp_path / "open.txt").write_text("visible\n")
    bus = HookBus()

    def block_secret(event: ToolCallEvent) -> None:
        if event.args.get("path") == "secret.txt":
            event.block = "secret.txt is off limits"

    def patch(event: ToolResultEvent) -> None:
        event.result = ToolResult(event.result.text + "\n[checked]")

    def add_reminder(event: ContextEvent) -> None:
        event.messages = [*event.messages, Message(role="notice", text="remember the rules")]

    bus.on("tool_call", block_secret)
    bus.on("tool_result", patch)
    bus.on("context", add_reminder)
    calls = [
        {"name": "read", "arguments": {"path": "secret.txt"}},
        {"name": "read", "arguments": {"path": "open.txt"}},
    ]
    agent, model, _ = setup(tmp_path, [{"tool_calls": calls}, {"text": "ok"}], bus=bus)
    await agent.start([user("read both")], "system")
    results = [m for m in agent.state.messages if m.role == "tool_result"]
    assert (results[0].text, results[0].is_error) == ("secret.txt is off limits", True)
    assert results[1].text == "visible\n[checked]"
    assert model.requests[0][-1].text == "remember the rules"
    assert all(m.role != "notice" for m in agent.state.messages), (
        "context hook changes are per call"
    )


async def test_bad_calls_become_errors_the_model_reads(tmp_path: Path) -> None:
    calls = [
        {"name": "fly", "arguments": {}},
        {"name": "read", "arguments": {}},
        {"name": "read", "arguments": {"path": 7}},
    ]
    agent, _, _ = setup(tmp_path, [{"tool_calls": calls}, {"text": "sorry"}])
    assert await agent.start([user("x")], "system") == "completed"
    texts = [m.text for m in agent.state.messages if m.role == "tool_result"]
    assert texts[0] == "Unknown tool 'fly'. Available tools: read, bash, edit, write."
    assert texts[1] == "Invalid arguments for read: missing required argument(s): path"
    assert texts[2] == "Invalid arguments for read: argument 'path' must be of type string, not int"


async def test_calls_of_a_length_limited_reply_are_not_run(tmp_path: Path) -> None:
    calls = [{"name": "write", "arguments": {"path": "x.txt", "content": "half"}}]
    agent, _, _ = setup(tmp_path, [{"tool_calls": calls, "finish": "length"}, {"text": "again"}])
    await agent.start([user("x")], "system")
    assert not (tmp_path / "x.txt").exists()
    result = next(m for m in agent.state.messages if m.role == "tool_result")
    assert result.is_error and "output token limit" in result.text


class CutOff:
    """A model whose stream ends without a finish reason."""

    def __init__(self) -> None:
        from workbench.agent.models.client import ModelInfo

        self.info = ModelInfo("cut-off", offline=True)

    async def stream(self, request: ModelRequest) -> AsyncIterator[Delta]:
        yield TextDelta("half an ans")


async def test_a_stream_without_a_finish_reason_is_reported_as_cut_off(tmp_path: Path) -> None:
    events: list[Event] = []
    agent = Agent(model=CutOff(), tools=[], store=MemoryStore(), emit=events.append, cwd=tmp_path)
    assert await agent.start([user("x")], "system") == "error"
    reply = agent.state.messages[-1]
    assert (reply.text, reply.stop_reason) == ("half an ans", "truncated")
    errors = [e.to_dict() for e in events if e.type == "error"]
    assert errors == [
        {
            "type": "error",
            "message": "the model's reply was cut off: the stream ended without a finish reason",
            "hint": "its first 11 characters are kept in the conversation: send “continue” to go "
            "on from there, or send your request again",
        }
    ]


async def test_transient_errors_are_retried_with_events(tmp_path: Path) -> None:
    turns = [{"error": "rate_limit"}, {"error": "overloaded"}, {"text": "finally"}]
    config = AgentConfig(retry=RetryPolicy(max_retries=3, base_delay_s=0.001))
    agent, _, events = setup(tmp_path, turns, config=config)
    assert await agent.start([user("x")], "system") == "completed"
    retries = [e.to_dict() for e in events if e.type.startswith("retry")]
    assert [(r["type"], r["attempt"]) for r in retries] == [
        ("retry_start", 1),
        ("retry_start", 2),
        ("retry_end", 2),
    ]
    assert retries[1]["delay_ms"] == pytest.approx(2.0)
    assert retries[-1]["success"] is True


async def test_retries_give_up_with_an_error(tmp_path: Path) -> None:
    turns = [{"error": "server"}] * 3
    config = AgentConfig(retry=RetryPolicy(max_retries=2, base_delay_s=0.001))
    agent, _, events = setup(tmp_path, turns, config=config)
    assert await agent.start([user("x")], "system") == "error"
    end = events[-1].to_dict()
    assert end == {"type": "agent_end", "stop_reason": "error", "error": "scripted server error"}
    assert [e.to_dict()["success"] for e in events if e.type == "retry_end"] == [False]


async def test_auth_errors_are_not_retried(tmp_path: Path) -> None:
    agent, _, events = setup(tmp_path, [{"error": "auth"}, {"text": "never"}])
    assert await agent.start([user("x")], "system") == "error"
    assert not [e for e in events if e.type.startswith("retry")]


class Broken:
    """A model with a bug."""

    def __init__(self) -> None:
        from workbench.agent.models.client import ModelInfo

        self.info = ModelInfo("broken", offline=True)

    async def stream(self, request: ModelRequest) -> AsyncIterator[Delta]:
        raise KeyError("oops")
        yield TextDelta("")


async def test_a_bug_ends_the_run_visibly(tmp_path: Path) -> None:
    events: list[Event] = []
    agent = Agent(model=Broken(), tools=[], store=MemoryStore(), emit=events.append, cwd=tmp_path)
    assert await agent.start([user("x")], "system") == "error"
    assert events[-1].to_dict()["error"] == "unexpected error: KeyError('oops')"
    assert not agent.busy
