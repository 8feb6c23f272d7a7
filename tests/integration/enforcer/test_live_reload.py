"""A skill written during a run is known before the model's next call: its read is checked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support.git_project import git, make_project
from support.skill_trees import write_tree

from workbench.messages import Message
from workbench.runtime import Workbench, WorkbenchOptions

NEW_MOLECULE = """---
name: molecule-new
description: Does a new thing. Use it for tests.
metadata:
  layer: molecule
  delegates-to: outline
---

## Purpose
Written by the model during the run.
"""


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"text": f"calling {name}", "tool_calls": [{"name": name, "arguments": arguments}]}


async def run_script(
    project: Path, folder: Path, turns: list[dict[str, Any]]
) -> tuple[list[Any], list[Message]]:
    """Run one prompt of a scripted model through a real Workbench: its events in order, and
    the session's messages."""
    script = folder / "script.json"
    script.write_text(json.dumps(turns), encoding="utf-8")
    # (sandbox off: the box keeps `.pi/` read-only, and this model writes a skill there)
    options = WorkbenchOptions(cwd=project, model=f"scripted:{script}", sandbox="off")
    workbench = await Workbench.open(options)
    events: list[Any] = []
    workbench.subscribe(events.append)
    try:
        await workbench.prompt("add a molecule and use it")
        assert await workbench.wait_idle() == "completed"
        messages = workbench.messages()
    finally:
        await workbench.close()
    return events, messages


async def test_a_skill_written_in_one_turn_is_checked_when_read_in_the_next(tmp_path: Path):
    project = make_project(tmp_path / "project")
    write_tree(project / ".pi" / "skills")
    git(project, "add", "--all")
    git(project, "commit", "--quiet", "-m", "skills")
    path = ".pi/skills/molecule-new/SKILL.md"
    turns = [call("write", path=path, content=NEW_MOLECULE), call("read", path=path)]
    events, messages = await run_script(project, tmp_path, [*turns, {"text": "done"}])

    kinds = [e.type for e in events if e.type in ("skills_reloaded", "skill_load")]
    assert kinds == ["skills_reloaded", "skill_load"]  # reloaded before the read, not after
    [load] = [e for e in events if e.type == "skill_load"]
    assert (load.skill, load.layer, load.verdict) == ("molecule-new", "molecule", "violation")
    assert "no compound delegates to it" in load.reason
    written, read = [m for m in messages if m.role == "tool_result"]
    assert not written.is_error and "skill_load" not in written.details
    assert read.details["skill_load"]["skill"] == "molecule-new"
    assert "[skill graph] Loaded molecule `molecule-new`" in read.text
    notices = [m.text for m in messages if m.role == "notice"]
    assert notices[0].startswith(
        "[skill graph] Skill loading violation: The molecule `molecule-new`"
    )
