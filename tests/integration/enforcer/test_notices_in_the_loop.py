"""The enforcer's notices in a real run (the loop, litellm, a local server): a notice that only
informs never skips another call, a real violation stops the rest of its reply and says so, and
the correction the enforcer asked for is accepted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from support.openai_server import OpenAIServer, Reply
from support.skill_trees import write_tree

from workbench.agent.events import Event, event_dict
from workbench.runtime import Workbench, WorkbenchOptions


def reads(*names: str) -> Reply:
    calls = [
        {"name": "read", "arguments": {"path": f".pi/skills/{name}/SKILL.md"}} for name in names
    ]
    return Reply(tool_calls=calls)


async def run(project: Path, server: OpenAIServer, *replies: Reply) -> list[Event]:
    write_tree(project / ".pi" / "skills")
    server.add(*replies, Reply(text="done"))
    workbench = await Workbench.open(
        WorkbenchOptions(cwd=project, model="openai/m", api_base=server.url, api_key="k")
    )
    events: list[Event] = []
    workbench.subscribe(events.append)
    await workbench.prompt("go")
    assert await workbench.wait_idle() == "completed"
    await workbench.close()
    return events


def of(events: list[Event], kind: str) -> list[dict[str, Any]]:
    return [event_dict(e) for e in events if e.type == kind]


async def test_a_re_read_rides_on_its_read_and_skips_nothing(project, server) -> None:
    events = await run(
        project,
        server,
        reads("triage-bug"),
        reads("reproduce-bug", "triage-bug", "run-tests", "extract-text"),
    )
    verdicts = [(e["skill"], e["verdict"]) for e in of(events, "skill_load")]
    assert verdicts == [
        ("triage-bug", "ok"),
        ("reproduce-bug", "ok"),
        ("triage-bug", "cycle"),  # back up the chain it is on: informs, like a repeat
        ("run-tests", "ok"),
        ("extract-text", "ok"),
    ]
    ends = of(events, "tool_execution_end")
    assert [e["skipped"] for e in ends] == [False] * 5, "every read ran"
    again = ends[2]["result"]["text"]
    assert "\n[skill graph] Skill loading cycle: `triage-bug` is already on" in again
    roles = [m["role"] for m in server.requests[-1]["messages"]]
    assert roles.count("user") == 1, "no message the user did not send"


async def test_a_violation_stops_the_reply_and_the_correction_is_ok(project, server) -> None:
    events = await run(
        project,
        server,
        reads("triage-bug"),
        reads("outline", "extract-text"),  # outline skips its molecule: a violation
        reads("write-draft"),  # the load the enforcer asked for
        reads("outline"),  # the correction: in order now
    )
    verdicts = [(e["skill"], e["verdict"]) for e in of(events, "skill_load")]
    assert verdicts == [
        ("triage-bug", "ok"),
        ("outline", "violation"),
        ("write-draft", "ok"),
        ("outline", "ok"),
    ]
    skipped = [e for e in of(events, "tool_execution_end") if e["skipped"]]
    assert len(skipped) == 1 and skipped[0]["args"]["path"].endswith("extract-text/SKILL.md")
    text = skipped[0]["result"]["text"]
    assert text.startswith(
        "Skipped: the skill-graph enforcer stopped this reply after a skill loading violation ("
    )
    assert "queued user message" not in text
    told = server.requests[2]["messages"]
    assert (
        told[-1]["role"] == "user"
        and "[skill graph] Skill loading violation" in (told[-1]["content"])
    ), "the model sees the notice before its next step"
