"""The Workbench API as front ends use it: model switches, idle steering, state; demo summaries."""

from __future__ import annotations

import json
from pathlib import Path

from workbench.agent.compaction_plan import CompactionPlan, summary_request
from workbench.agent.models.client import TextDelta
from workbench.agent.models.demo import DemoModel
from workbench.messages import Message, ToolCall
from workbench.runtime import Workbench, WorkbenchOptions
from workbench.skills.graph import SkillGraph


def script(folder: Path, name: str, turns: list[dict]) -> str:
    (folder / name).write_text(json.dumps(turns))
    return f"scripted:{name}"


async def open_session(project: Path, model: str) -> tuple[Workbench, list]:
    workbench = await Workbench.open(
        WorkbenchOptions(cwd=project, model=model, skills=SkillGraph([]))
    )
    events: list = []
    workbench.subscribe(events.append)
    return workbench, events


async def test_switching_models_takes_effect_on_the_next_call(project: Path) -> None:
    first = script(project, "a.json", [{"text": "from a"}])
    second = script(project, "b.json", [{"text": "from b"}])
    workbench, events = await open_session(project, first)
    await workbench.prompt("one")
    await workbench.wait_idle()
    await workbench.set_model(second)
    changes = [e.to_dict() for e in events if e.type == "model_change"]
    assert changes == [
        {"type": "model_change", "model": second, "offline": True, "context_window": 128000}
    ]
    await workbench.prompt("two")
    await workbench.wait_idle()
    assert [m.text for m in workbench.agent.state.messages if m.role == "assistant"] == [
        "from a",
        "from b",
    ]
    assert workbench.state().model == second


async def test_steer_and_follow_up_while_idle_start_a_run(project: Path) -> None:
    model = script(project, "s.json", [{"text": "first"}, {"text": "second"}])
    workbench, events = await open_session(project, model)
    await workbench.steer("go this way")
    assert await workbench.wait_idle() == "completed"
    await workbench.follow_up("and then this")
    assert await workbench.wait_idle() == "completed"
    users = [m.text for m in workbench.agent.state.messages if m.role == "user"]
    assert users == ["go this way", "and then this"]
    assert [e.type for e in events].count("agent_start") == 2


async def test_state_reports_what_a_status_bar_shows(project: Path) -> None:
    model = script(
        project, "s.json", [{"text": "hi", "usage": {"input_tokens": 300, "output_tokens": 20}}]
    )
    workbench, _ = await open_session(project, model)
    await workbench.prompt("hello")
    await workbench.wait_idle()
    state = workbench.state().to_dict()
    assert state["busy"] is False and state["offline"] is True
    assert state["context_tokens"] == 320 and state["context_window"] == 128000
    assert state["total_cost"] == 0.0 and state["message_count"] == 2
    assert state["steering"] == [] and state["follow_up"] == []


async def test_the_demo_writes_a_goal_first_summary_that_keeps_old_goals() -> None:
    conversation = [
        Message(role="user", text="GOAL two"),
        Message(role="assistant", tool_calls=[ToolCall("c", "read", {"path": "x.md"})]),
    ]
    plan = CompactionPlan(conversation, None, "## Goal\nGOAL one\n\n## Progress")
    request = summary_request(plan, None, 1000)
    model = DemoModel(lambda: SkillGraph([]), Path.cwd)
    text = "".join([d.text async for d in model.stream(request) if isinstance(d, TextDelta)])
    assert text.startswith("## Goal\nGOAL one\nGOAL two\n")
    assert '- [x] read {"path": "x.md"}' in text
