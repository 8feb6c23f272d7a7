"""Abort against the real git store: an entry git finished writing is never lost or doubled."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from support.session_entries import git

from workbench.agent.loop import Agent
from workbench.agent.models.scripted import ScriptedModel
from workbench.agent.store import messages_of
from workbench.messages import Message
from workbench.sessions.session import Session
from workbench.tool import Tool, ToolContext, ToolResult


async def test_an_abort_landing_during_an_append_keeps_the_log_and_the_loop_in_step(
    project: Path,
) -> None:
    """The abort arrives while git writes the tool's result (the first moment the loop waits
    after the tool returned): the result is recorded once, and the loop knows it."""
    agent: Agent | None = None

    async def finish_then_abort(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        assert agent is not None
        asyncio.get_running_loop().call_soon(lambda: asyncio.ensure_future(agent.abort()))
        return ToolResult("done")

    tool = Tool("work", "works", {"type": "object", "properties": {}}, finish_then_abort)
    script = project / "script.json"
    calls = [{"name": "work", "arguments": {}, "id": "c1"}, {"name": "work", "id": "c2"}]
    script.write_text(json.dumps([{"tool_calls": calls}, {"text": "never"}]))
    with Session.create(project) as session:
        agent = Agent(
            model=ScriptedModel(script),
            tools=[tool],
            store=session.store,
            emit=lambda event: None,
            cwd=project,
        )
        assert await agent.start([Message(role="user", text="go")]) == "aborted"
        logged = messages_of(session.store.path())
        loop_view = list(agent.state.messages)
        ref = f"refs/workbench/{session.id}/branches/main"

    results = [(m.tool_call_id, m.text) for m in logged if m.role == "tool_result"]
    assert results == [("c1", "done"), ("c2", "Skipped: the run was aborted by the user.")]
    assert [m.id for m in loop_view] == [m.id for m in logged]
    assert git(project, "rev-list", "--count", ref) == str(len(logged))
