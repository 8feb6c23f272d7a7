"""A session's hook bus with the enforcer registered, driven the way the agent loop drives it.

`Harness.call` plays one tool call as the agent loop does: the `tool_call` hook; a refused call
becomes an error result carrying the event's `details`; otherwise the real tool work (the agent's
read tool, or the command in a real bash) and the `tool_result` hook. The finished result
becomes a tool-result message on the branch, as the loop stores it. The sink
records what the enforcer sends to the model and publishes to front ends.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from support.skill_trees import Spec, load_set, write_tree
from workbench.agent.tools.read import read_tool
from workbench.config import Settings
from workbench.enforcer.extension import register
from workbench.errors import WorkbenchError
from workbench.extension_api import DeliverAs, ExtensionAPI
from workbench.hooks import (
    BeforeAgentStartEvent,
    HookBus,
    InputEvent,
    SessionStartEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from workbench.messages import Message
from workbench.tool import ToolContext, ToolResult


@dataclass
class RecordingSink:
    """Keeps what was delivered to the model and emitted to front ends, in order."""

    delivered: list[tuple[Message, DeliverAs]] = field(default_factory=list)
    events: list[Any] = field(default_factory=list)

    def deliver(self, message: Message, deliver_as: DeliverAs) -> None:
        self.delivered.append((message, deliver_as))

    def emit(self, event: Any) -> None:
        self.events.append(event)


async def run_tool(tool_name: str, args: dict[str, Any], cwd: Path) -> ToolResult:
    """The real work of read (the agent's read tool) and bash (a real bash)."""
    if tool_name == "read":
        try:
            return await read_tool().execute(args, ToolContext(cwd=cwd))
        except WorkbenchError as exc:  # as the agent loop turns it into an error result
            return ToolResult(exc.message, is_error=True)
    process = await asyncio.create_subprocess_exec(
        "bash",
        "-c",
        args["command"],
        cwd=cwd,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await process.communicate()
    return ToolResult(output.decode(), is_error=process.returncode != 0)


class Harness:
    def __init__(
        self,
        root: Path,
        settings: dict[str, Any] | None = None,
        specs: dict[str, Spec] | None = None,
    ) -> None:
        self.root = root
        self.graph = write_tree(root / ".pi" / "skills", specs)
        (root / ".pi" / "settings.json").write_text(json.dumps(settings or {}))
        self.bus = HookBus()
        self.sink = RecordingSink()
        self.api = ExtensionAPI(self.bus, self.sink)
        self.messages: list[Message] = []
        self.enforcer = register(
            self.api, lambda: load_set(root / ".pi" / "skills"), Settings.load(root)
        )

    async def call(self, tool_name: str, **args: Any) -> Message:
        call_id = uuid.uuid4().hex[:8]
        event = await self.bus.run("tool_call", ToolCallEvent(call_id, tool_name, args, self.root))
        if event.block is not None:  # refused: no tool work and no tool_result hook
            result = ToolResult(event.block, is_error=True, details=event.details)
        else:
            if tool_name in self.api.tools:
                tool = self.api.tools[tool_name]
                context = ToolContext(cwd=self.root, tool_call_id=call_id)
                result = await tool.execute(args, context)
                changes_files = tool.changes_files
            else:
                result = await run_tool(tool_name, args, self.root)
                changes_files = tool_name != "read"
            event = ToolResultEvent(call_id, tool_name, args, self.root, result, changes_files)
            result = (await self.bus.run("tool_result", event)).result
        message = Message(
            role="tool_result",
            text=result.text,
            tool_call_id=call_id,
            tool_name=tool_name,
            is_error=result.is_error,
            details=result.details,
        )
        self.messages.append(message)
        return message

    async def read(self, name: str) -> Message:
        return await self.call("read", path=f".pi/skills/{name}/SKILL.md")

    async def system_prompt(self, base: str = "You are helpful.") -> str:
        event = await self.bus.run("before_agent_start", BeforeAgentStartEvent(base, "go"))
        return event.system_prompt

    async def user(self, text: str) -> InputEvent:
        event = await self.bus.run("input", InputEvent(text))
        if not event.handled:
            self.messages.append(Message(role="user", text=event.text, details=event.details))
        return event

    async def start(self, messages: list[Message], reason: str = "resume") -> None:
        await self.bus.run("session_start", SessionStartEvent(messages, self.root, reason))

    def notices(self) -> list[str]:
        return [m.text for m, how in self.sink.delivered if how == "steer"]

    def verdicts(self) -> list[tuple[str, str]]:
        return [(e.skill, e.verdict) for e in self.sink.events if e.type == "skill_load"]
