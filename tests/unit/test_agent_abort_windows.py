"""Aborts that land while the loop writes to the log: every tool call of a recorded reply still
gets its recorded result, and no user message taken from a queue is lost.

Each test holds one chosen append of the in-memory store open (`HeldStore`: the span a git
append takes, made as long as the test needs), aborts while it is held, then lets it finish.
The test waits on conditions only (the append reached, the run cancelled), never on time.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from workbench.agent.events import Event
from workbench.agent.loop import SKIPPED_FOR_ABORT, SKIPPED_FOR_STEERING, Agent, AgentConfig
from workbench.agent.models.scripted import ScriptedModel
from workbench.agent.store import EntryType, MemoryStore, messages_of
from workbench.messages import Message
from workbench.tool import Tool, ToolContext, ToolResult

Holds = Callable[[EntryType, dict[str, Any]], bool]


class HeldStore(MemoryStore):
    """The in-memory store; the first append that `holds` picks waits until `release` is set."""

    def __init__(self, holds: Holds) -> None:
        super().__init__()
        self.holds = holds
        self.reached = asyncio.Event()
        self.release = asyncio.Event()

    async def append(self, type: EntryType, payload: dict[str, Any]) -> Any:
        if not self.reached.is_set() and self.holds(type, payload):
            self.reached.set()
            await self.release.wait()
        return await super().append(type, payload)


def work_tool(on_run: Callable[[str], None] = lambda label: None) -> Tool:
    async def execute(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        on_run(args["label"])
        return ToolResult(f"did {args['label']}")

    schema = {"type": "object", "properties": {"label": {"type": "string"}}}
    return Tool("work", "does one piece of work", schema, execute)


def calls(*labels: str) -> list[dict[str, Any]]:
    return [{"name": "work", "arguments": {"label": x}, "id": f"call-{x}"} for x in labels]


def agent_with(
    tmp_path: Path,
    turns: list[dict[str, Any]],
    store: HeldStore,
    tool: Tool | None = None,
    config: AgentConfig | None = None,
) -> tuple[Agent, list[Event]]:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(turns))
    events: list[Event] = []
    agent = Agent(
        model=ScriptedModel(script),
        tools=[tool or work_tool()],
        store=store,
        emit=events.append,
        cwd=tmp_path,
        config=config,
    )
    return agent, events


async def abort_while_held(agent: Agent, run: asyncio.Task[str], store: HeldStore) -> None:
    """Abort while the held append waits, then let it finish; the run must end aborted."""
    await store.reached.wait()
    abort = asyncio.ensure_future(agent.abort())
    while not run.cancelling():  # the abort has reached the run (yielding, not sleeping)
        await asyncio.sleep(0)
    store.release.set()
    await abort
    assert await run == "aborted"


def results(store: MemoryStore) -> list[tuple[str | None, str]]:
    return [(m.tool_call_id, m.text) for m in messages_of(store.path()) if m.role == "tool_result"]


def user(text: str) -> Message:
    return Message(role="user", text=text)


async def test_an_abort_while_steering_skips_are_written_still_answers_every_call(
    tmp_path: Path,
) -> None:
    steer: list[Agent] = []

    def steer_during_a(label: str) -> None:
        if label == "a":
            steer[0].steering.push(user("stop, do it differently"))

    store = HeldStore(lambda type, payload: payload.get("tool_call_id") == "call-b")
    turns = [{"tool_calls": calls("a", "b", "c", "d")}, {"text": "never asked"}]
    agent, _ = agent_with(tmp_path, turns, store, work_tool(steer_during_a))
    steer.append(agent)
    run = agent.start([user("do four things")])
    await abort_while_held(agent, run, store)

    assert results(store) == [
        ("call-a", "did a"),
        ("call-b", SKIPPED_FOR_STEERING),
        ("call-c", SKIPPED_FOR_STEERING),
        ("call-d", SKIPPED_FOR_STEERING),
    ]
    assert agent.steering.texts() == ["stop, do it differently"]  # still queued, not lost
    assert [m.id for m in agent.state.messages] == [m.id for m in messages_of(store.path())]


async def test_an_abort_while_the_reply_is_written_answers_its_calls_and_runs_none(
    tmp_path: Path,
) -> None:
    ran: list[str] = []
    store = HeldStore(lambda type, payload: type == "assistant")
    turns = [{"text": "two things", "tool_calls": calls("a", "b")}]
    agent, events = agent_with(tmp_path, turns, store, work_tool(ran.append))
    run = agent.start([user("do two things")])
    await abort_while_held(agent, run, store)

    assert ran == []
    assert [m.role for m in messages_of(store.path())] == [
        "user",
        "assistant",
        "tool_result",
        "tool_result",
    ]
    assert results(store) == [("call-a", SKIPPED_FOR_ABORT), ("call-b", SKIPPED_FOR_ABORT)]
    ends = [e for e in events if e.type == "tool_execution_end"]
    assert [(e.tool_call_id, e.skipped) for e in ends] == [("call-a", True), ("call-b", True)]


async def test_an_abort_while_follow_ups_are_written_records_all_of_them(
    tmp_path: Path,
) -> None:
    store = HeldStore(lambda type, payload: payload.get("text") == "second")
    config = AgentConfig(follow_up_mode="all")
    agent, _ = agent_with(tmp_path, [{"text": "first answer"}], store, config=config)
    for text in ("first", "second", "third"):
        agent.follow_ups.push(user(text))
    run = agent.start([user("begin")])
    await abort_while_held(agent, run, store)

    users = [m.text for m in messages_of(store.path()) if m.role == "user"]
    assert users == ["begin", "first", "second", "third"]
    assert agent.follow_ups.texts() == []
    assert [m.id for m in agent.state.messages] == [m.id for m in messages_of(store.path())]


async def test_an_abort_right_after_start_still_records_the_prompt(tmp_path: Path) -> None:
    """Aborted before the run's task took its first step: the prompt is not lost, and front
    ends see the run start and end."""
    store = HeldStore(lambda type, payload: False)
    agent, events = agent_with(tmp_path, [{"text": "never asked"}], store)
    agent.steering.push(user("and this, queued before"))
    run = agent.start([user("a prompt")])
    await agent.abort()

    assert await run == "aborted"
    users = [m.text for m in messages_of(store.path()) if m.role == "user"]
    assert users == ["a prompt", "and this, queued before"]
    assert [e.type for e in events if e.type in ("agent_start", "agent_end")] == [
        "agent_start",
        "agent_end",
    ]
