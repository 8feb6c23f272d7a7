"""Compacting the agent's conversation: when, within which budgets, and recording the summary.

What a summary holds and which messages it replaces is `workbench.agent.compaction`; this is the
agent's side: the token count of its context, the budgets for its model's window, the compaction
events, and `/compact` by hand as an abortable task.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable

from workbench.agent import compaction
from workbench.agent.config import AgentConfig
from workbench.agent.events import CompactionEnd, CompactionStart, Event
from workbench.agent.models.client import ModelClient, ModelError, ModelRequest
from workbench.agent.queues import MessageQueue
from workbench.errors import WorkbenchError
from workbench.messages import Message
from workbench.tool import Tool


class Compacting:
    """Mixed into `Agent` (see `workbench.agent.loop`); uses the attributes declared here."""

    model: ModelClient
    tools: dict[str, Tool]
    config: AgentConfig
    system_prompt: str
    messages: list[Message]
    steering: MessageQueue
    follow_ups: MessageQueue
    emit: Callable[[Event], None]
    complete_text: Callable[[ModelRequest], Awaitable[str]]
    _append: Callable[[Message], Awaitable[None]]
    _run: Callable[[list[Message]], Awaitable[str]]

    def context_tokens(self) -> int:
        overhead = compaction.estimate_text(
            self.system_prompt + json.dumps([t.schema() for t in self.tools.values()])
        )
        return compaction.context_tokens(self.messages, overhead)

    def _limits(self) -> tuple[int, int]:
        """Reserve and keep-recent budgets, shrunk for small context windows."""
        settings = self.config.compaction
        window = self.model.info.context_window
        reserve = min(settings.reserve_tokens, window // 4)
        keep = min(settings.keep_recent_tokens, (window - reserve) // 2)
        return reserve, keep

    async def _manual_compaction(self, focus: str | None) -> str:
        """Compact; then deliver anything the user queued meanwhile (nothing else would)."""
        try:
            await self.compact("manual", focus)
        except asyncio.CancelledError:
            return "aborted"
        except (ModelError, WorkbenchError):
            return "error"
        queued = self.steering.take() or self.follow_ups.take()
        return await self._run(queued) if queued else "completed"

    async def compact(self, reason: str, focus: str | None = None) -> Message | None:
        """Summarise older history (see `workbench.agent.compaction`); the summary is recorded and
        the context of every later call starts with it."""
        before = self.context_tokens()
        self.emit(CompactionStart(reason, before))
        _, keep = self._limits()
        plan = compaction.plan_compaction(self.messages, keep)
        if plan is None:
            error = "nothing to compact: the whole context is recent enough to keep"
            self.emit(CompactionEnd(reason, before, error=error))
            if reason != "threshold":
                raise WorkbenchError(error)
            return None
        reserve, _ = self._limits()
        request = compaction.summary_request(plan, focus, int(reserve * 0.8))
        try:
            body = await self.complete_text(request)
        except asyncio.CancelledError:
            self.emit(CompactionEnd(reason, before, error="aborted"))
            raise
        except ModelError as exc:
            self.emit(CompactionEnd(reason, before, error=exc.message))
            raise
        message = compaction.summary_message(plan, body, before)
        await self._append(message)
        self.emit(CompactionEnd(reason, before, self.context_tokens(), message))
        return message

    async def summarize(self, messages: list[Message], focus: str | None = None) -> str:
        """A goal-first summary of `messages` by the compaction summariser, with the files read and
        modified: what a branch left behind (navigation) or brings back (a merge) is worth."""
        reserve, _ = self._limits()
        plan = compaction.whole_plan(messages)
        body = await self.complete_text(compaction.summary_request(plan, focus, int(reserve * 0.8)))
        return compaction.summary_message(plan, body, 0).text
