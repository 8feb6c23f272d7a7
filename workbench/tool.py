"""What a tool is: a name, a JSON schema and an async execute function.

Built-in tools (read, edit, write, bash), the enforcer's tools and extension tools all share this
shape. Abort reaches a running tool as asyncio cancellation; a tool that owns a process kills it
(its whole process group) in its `except asyncio.CancelledError` and re-raises. Expected failures
raise WorkbenchError; the loop turns them into an error result that the model reads.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.permission import Asker, PermissionRequest
from workbench.sandbox.policy import SandboxPolicy


@dataclass
class ToolResult:
    """The text the model sees, whether it is an error, and structured `details` for front ends."""

    text: str
    is_error: bool = False
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class ToolContext:
    """Where and for whom a tool runs; `update` streams partial output to front ends."""

    cwd: Path
    tool_call_id: str = ""
    update: Callable[[str], None] = lambda _text: None
    confined_to: tuple[Path, ...] | None = None
    """The folders the file tools may touch (the project and its worktrees); None: any."""
    sandbox: SandboxPolicy = field(default_factory=SandboxPolicy)
    """The box the bash tool runs commands in, and the rule the file tools follow too."""
    ask: Asker | None = None
    """Asks the user's permission (`workbench.permission`); None: no one to ask (headless)."""


ToolExecute = Callable[[dict[str, Any], ToolContext], Awaitable[ToolResult]]
Describe = Callable[[dict[str, Any], ToolContext], PermissionRequest]
"""What a call would do, for the user to approve before it runs (a diff, a command); raises
WorkbenchError when the call would fail anyway (then it runs and fails, unasked)."""


@dataclass
class Tool:
    """A tool the model may call."""

    name: str
    description: str
    parameters: dict[str, Any]
    execute: ToolExecute
    describe: Describe | None = None
    """Set by tools whose calls the `approval` setting may hold for the user (edit, bash)."""
    changes_files: bool = True
    """False for a tool that never changes a file (read): no file snapshot is taken around its
    calls (`workbench.agent.file_checkpoints`)."""

    def schema(self) -> dict[str, Any]:
        """The tool in the OpenAI function-calling format that litellm accepts for any provider."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }
