"""Children run the same enforcer: a standalone atom loads directly without notice; a molecule or
a non-standalone atom loaded directly is a violation, and the parent's result names it."""

from __future__ import annotations

import json
from pathlib import Path

from support.skill_trees import write_tree
from support.subagent_calls import call, script, user_agents, write_agent


def read_skill(name: str) -> dict:
    return {"tool_calls": [{"name": "read", "arguments": {"path": f".pi/skills/{name}/SKILL.md"}}]}


async def test_direct_loads_in_a_child_reach_the_parents_result(project: Path) -> None:
    write_tree(project / ".pi" / "skills")
    turns = [read_skill("fetch-url"), read_skill("write-draft"), {"text": "fetched and drafted"}]
    write_agent(user_agents(), "researcher", model=script(project, "r", turns), tools="read")

    done = await call(project, {"agent": "researcher", "task": "fetch, then draft"})

    (report,) = done.reports
    assert report["status"] == "completed"
    loads = [(s["skill"], s["layer"], s["standalone"], s["verdict"]) for s in report["skill_loads"]]
    assert loads == [
        ("fetch-url", "atom", True, "ok"),
        ("write-draft", "molecule", False, "violation"),
    ]
    (violation,) = report["violations"]
    assert violation["skill"] == "write-draft" and violation["blocked"] is False
    assert "publish-report" in violation["suggestion"]
    text = done.result.text
    assert "Skills loaded: fetch-url (standalone), write-draft" in text
    assert f"Skill rule violation: write-draft: {violation['reason']}" in text


async def test_block_mode_in_a_child_refuses_the_load_and_says_so(project: Path) -> None:
    write_tree(project / ".pi" / "skills")
    (project / ".pi" / "settings.json").write_text(json.dumps({"enforcer": {"mode": "block"}}))
    turns = [read_skill("extract-text"), {"text": "could not load it"}]
    write_agent(user_agents(), "researcher", model=script(project, "r", turns), tools="read")

    done = await call(project, {"agent": "researcher", "task": "extract"})

    (violation,) = done.reports[0]["violations"]
    assert (violation["skill"], violation["layer"], violation["blocked"]) == (
        "extract-text",
        "atom",
        True,
    )
    assert "Skills loaded:" not in done.result.text, "a refused load is no load"
    assert "Skill rule violation: extract-text (blocked): " in done.result.text
