"""What the agent loop and its parts share: one object, read at every step, never copied.

The layers above change it between and during runs (`/model` switches the model, navigation
replaces the messages and the store, a branch's worktree moves the tools' folder), and the parts
(`model_call`, `tool_execution`, `compactor`) must see each change at their next step. Recording
a message lives here too: every part records, and the store and `messages` must stay one history.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from workbench.agent import compaction_plan
from workbench.agent.approval import Approval
from workbench.agent.atomic_steps import run_to_end
from workbench.agent.costs import UsageTotals, message_totals
from workbench.agent.events import AgentEvent, MessageEnd, MessageStart
from workbench.agent.file_checkpoints import FileCheckpoints
from workbench.agent.models.client import ModelClient
from workbench.agent.store import ConversationStore
from workbench.errors import DiskFull
from workbench.messages import Message
from workbench.sandbox.policy import SandboxPolicy
from workbench.tool import Tool


@dataclass
class AgentState:
    """The model and tools a call offers, the system prompt, the branch's messages, where they are
    stored, where events go, and the folder the tools run in."""

    model: ModelClient
    tools: dict[str, Tool]
    store: ConversationStore
    emit: Callable[[AgentEvent], None]
    cwd: Path
    system_prompt: str = ""
    system_suffix: str = ""
    """Sent after the system prompt and its cache breakpoint: the working folder."""
    messages: list[Message] = field(default_factory=list)
    unsaved: list[Message] = field(default_factory=list)
    confined_to: tuple[Path, ...] | None = None
    """The folders the file tools may touch; None: any (see `ToolContext.confined_to`)."""
    sandbox: SandboxPolicy = field(default_factory=SandboxPolicy)
    """The box of the tools' commands (see `ToolContext.sandbox`); the runtime sets it."""
    """Messages kept in `messages` that a full disk kept out of the store, oldest first."""
    approval: Approval = field(default_factory=Approval)
    """Which calls wait for the user's approval, and who answers (`workbench.agent.approval`)."""
    checkpoints: FileCheckpoints | None = None
    """Records the files around each tool call (the session's snapshots); None: not kept."""

    async def record(self, message: Message, announce: bool = True) -> None:
        """Publish a finished message and append it to the store before anything else happens
        (`announce=False`: its message_start was already published while it streamed)."""
        if announce:
            self.emit(MessageStart(message))
        try:
            await self.append(message)
        finally:
            if self.messages and self.messages[-1] is message:
                self.emit(MessageEnd(message))

    async def append(self, message: Message) -> None:
        """Store `message` and add it to `messages` as one step that an abort cannot split.

        A store that writes on another thread (git) finishes an entry even when its caller is
        cancelled; were the loop to forget that entry, the abort handling would record the same
        tool call's result a second time and the next run would see a different history than
        the log. So the append runs to its end, then the cancellation goes on (`atomic_steps`).
        """

        async def store_and_keep() -> None:
            await self._write_unsaved()
            try:
                await self.store.append(message.role, message.to_dict())
            except DiskFull:
                self.unsaved.append(message)
                self.messages.append(message)  # kept: written with the next append
                raise
            self.messages.append(message)

        await run_to_end(store_and_keep())

    async def _write_unsaved(self) -> None:
        """Write the messages a full disk held back, in order, before anything newer."""
        while self.unsaved:
            message = self.unsaved[0]
            await self.store.append(message.role, message.to_dict())
            self.unsaved.pop(0)

    def context_tokens(self) -> int:
        """The estimated size of the next call's context: messages, system prompt and tools."""
        overhead = compaction_plan.estimate_text(
            self.system_prompt
            + self.system_suffix
            + json.dumps([t.schema() for t in self.tools.values()])
        )
        return compaction_plan.context_tokens(self.messages, overhead)

    def totals(self) -> UsageTotals:
        """What the branch's conversation cost so far: its calls, its sub-agents and the
        experiments merged into it (`workbench.agent.costs`). The cost is None when any part's
        price was unknown, or when no call was made yet and the current model's price is
        unknown."""
        totals = message_totals(self.messages)
        if not totals.calls and not self.model.info.priced:
            totals.cost = None
        return totals

    def total_cost(self) -> float | None:
        return self.totals().cost

    def last_call(self) -> Message | None:
        """The latest assistant reply that reported its usage."""
        for message in reversed(self.messages):
            if message.role == "assistant" and message.usage is not None:
                return message
        return None
