"""Single, parallel and chain calls with real child processes, and the tool in a real session."""

from __future__ import annotations

from pathlib import Path

from support.subagent_calls import bash, call, project_agents, script, user_agents, write_agent

from workbench.agent.events import Event
from workbench.agent.subagents.run import SUBAGENT_MARKER
from workbench.runtime import Workbench, WorkbenchOptions
from workbench.skills.graph import SkillGraph

READ_NOTES = {"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]}


def usage(input_tokens: int, output_tokens: int) -> dict[str, int]:
    return {"input_tokens": input_tokens, "output_tokens": output_tokens}


async def test_single_returns_the_answer_usage_and_progress(project: Path) -> None:
    (project / "notes.txt").write_text("the build needs python 3.11\n")
    turns = [
        {**bash("sleep 0.5"), "usage": usage(100, 10)},
        {**READ_NOTES, "usage": usage(150, 12)},
        {"text": "The notes say:\nthe build needs python 3.11", "usage": usage(200, 9)},
    ]
    write_agent(user_agents(), "scout", model=script(project, "scout", turns), tools="read,bash")

    done = await call(project, {"agent": "scout", "task": "what do the notes say?"})

    assert not done.result.is_error
    (report,) = done.reports
    assert report["status"] == "completed" and report["stop_reason"] == "completed"
    assert report["answer"] == "The notes say:\nthe build needs python 3.11"
    assert (report["turns"], report["usage"]["input"], report["usage"]["output"]) == (3, 450, 31)
    assert report["cost"] == 0.0 and report["exit_code"] == 0 and report["source"] == "user"
    assert done.result.text.startswith("## scout (user agent): completed\n\nThe notes say:")
    assert "[3 turns · 450 in / 31 out · $0.0000 · scripted:" in done.result.text
    running = [u for u in done.updates if "bash: sleep 0.5" in u]
    assert running and running[0].startswith("… scout · bash: sleep 0.5"), done.updates
    assert done.updates[-1].startswith("✓ scout · completed")
    assert done.updates[-1].endswith("    the build needs python 3.11")


async def test_parallel_runs_every_task_and_reports_each(project: Path) -> None:
    write_agent(user_agents(), "alpha", model=script(project, "a", [{"text": "from alpha"}]))
    write_agent(user_agents(), "beta", model=script(project, "b", [{"text": "from beta"}]))
    tasks = [{"agent": "beta", "task": "one"}, {"agent": "alpha", "task": "two"}]

    done = await call(project, {"tasks": tasks})

    assert not done.result.is_error
    assert [(r["agent"], r["task"], r["answer"]) for r in done.reports] == [
        ("beta", "one", "from beta"),
        ("alpha", "two", "from alpha"),
    ]
    text = done.result.text
    assert text.startswith("Parallel: 2 of 2 tasks succeeded.")
    assert text.index("## beta (user agent): completed\nTask: one\n\nfrom beta") < text.index(
        "## alpha (user agent): completed\nTask: two\n\nfrom alpha"
    )
    assert any(u.startswith("parallel: 0 of 2 done, 2 running") for u in done.updates)
    assert done.updates[-1].startswith("parallel: 2 of 2 done, 0 running")
    rows = [row.split(" · ")[:2] for row in done.updates[-1].splitlines()[1:] if row[0] != " "]
    assert rows == [['✓ #1 beta "one"', "completed"], ['✓ #2 alpha "two"', "completed"]]
    running_rows = [row for u in done.updates for row in u.splitlines() if row.startswith("…")]
    assert not any("· completed ·" in row for row in running_rows), running_rows


async def test_chain_stops_at_the_first_failure_and_names_the_step(project: Path) -> None:
    write_agent(user_agents(), "first", model=script(project, "1", [{"text": "step one done"}]))
    write_agent(user_agents(), "broken", model=script(project, "2", [{"error": "auth"}]))
    never = script(project, "3", [bash("touch third-step-ran"), {"text": "three"}])
    write_agent(user_agents(), "third", model=never)
    chain = [
        {"agent": "first", "task": "start"},
        {"agent": "broken", "task": "go on from {previous}"},
        {"agent": "third", "task": "finish {previous}"},
    ]

    done = await call(project, {"chain": chain})

    assert done.result.is_error
    assert done.result.text.startswith("Chain stopped at step 2 of 3 (broken): scripted auth error")
    assert [r["status"] for r in done.reports] == ["completed", "failed", "pending"]
    assert done.reports[1]["stop_reason"] == "error"
    assert not (project / "third-step-ran").exists(), "the step after the failure never ran"
    assert "## step 1: first (user agent): completed" in done.result.text
    failed_step = "## step 2: broken (user agent): error\nTask: go on from step one done\n"
    assert failed_step in done.result.text, "the task as the child received it"
    assert done.reports[1]["task"] == "go on from step one done"
    assert done.reports[2]["task"] == "finish {previous}", "a step never run keeps its template"


async def test_a_session_offers_the_tool_only_when_agents_exist_and_never_to_children(
    project: Path, monkeypatch
) -> None:
    async def tools() -> list[str]:
        options = WorkbenchOptions(cwd=project, model="demo", skills=SkillGraph([]))
        workbench = await Workbench.open(options)
        try:
            return list(workbench.agent.state.tools)
        finally:
            await workbench.close()

    assert "subagent" not in await tools()
    write_agent(project_agents(project), "helper")
    assert "subagent" in await tools()
    monkeypatch.setenv(SUBAGENT_MARKER, "parent-1")
    assert "subagent" not in await tools(), "a child cannot start children of its own"


async def test_a_session_runs_the_tool_and_records_its_updates(project: Path) -> None:
    write_agent(user_agents(), "helper", model=script(project, "h", [{"text": "helped"}]))
    call_turn = {
        "tool_calls": [{"name": "subagent", "arguments": {"agent": "helper", "task": "x"}}]
    }
    parent = script(project, "parent", [call_turn, {"text": "all done"}])
    workbench = await Workbench.open(
        WorkbenchOptions(cwd=project, model=parent, skills=SkillGraph([]))
    )
    events: list[Event] = []
    workbench.subscribe(events.append)
    try:
        await workbench.prompt("delegate")
        assert await workbench.wait_idle() == "completed"
    finally:
        await workbench.close()
    updates = [e for e in events if e.type == "tool_execution_update"]
    assert updates and all(e.tool_name == "subagent" for e in updates)
    result = next(m for m in workbench.agent.state.messages if m.role == "tool_result")
    assert result.text.startswith("## helper (user agent): completed\n\nhelped")
    assert result.details["subagent"]["results"][0]["answer"] == "helped"
    assert "subagent: Delegate focused work" in workbench.system_prompt
