"""Compacting the agent's conversation: when, within which budgets, and recording the summary.

What a summary holds and which messages it replaces is `workbench.agent.compaction_plan`; this
is the agent's side: the budgets for its model's window, the compaction events, and the summary
written by its model and recorded in its history.
"""

from __future__ import annotations

import asyncio

from workbench.agent import compaction_plan
from workbench.agent.costs import PricedText, text_usage
from workbench.agent.events import CompactionEnd, CompactionStart
from workbench.agent.model_call import ModelCaller
from workbench.agent.models.client import ModelError, ModelRequest
from workbench.agent.state import AgentState
from workbench.errors import WorkbenchError
from workbench.messages import Message

NOTHING_TO_COMPACT = "nothing to compact: the whole context is recent enough to keep"


class Compactor:
    """Compacts the agent's history (see `workbench.agent.loop`): the messages and the model's
    window come from the shared state; the summary is written through the model caller."""

    def __init__(
        self,
        state: AgentState,
        settings: compaction_plan.CompactionSettings,
        model_caller: ModelCaller,
    ) -> None:
        self.state = state
        self.settings = settings
        self.model_caller = model_caller

    def near_full(self) -> bool:
        """Whether the context leaves less than the reserve free in the model's window."""
        reserve, _ = self._limits()
        return self.state.context_tokens() > self.state.model.info.context_window - reserve

    def _limits(self) -> tuple[int, int]:
        """Reserve and keep-recent budgets, shrunk for small context windows."""
        window = self.state.model.info.context_window
        reserve = min(self.settings.reserve_tokens, window // 4)
        keep = min(self.settings.keep_recent_tokens, (window - reserve) // 2)
        return reserve, keep

    async def compact(self, reason: str, focus: str | None = None) -> Message | None:
        """Summarise older history (see `workbench.agent.compaction_plan`); the summary is recorded
        and the context of every later call starts with it."""
        before = self.state.context_tokens()
        self.state.emit(CompactionStart(reason, before))
        _, keep = self._limits()
        plan = compaction_plan.plan_compaction(self.state.messages, keep)
        if plan is None:  # asked for by hand, that is an answer; needed to go on, a failure
            error = None if reason == "manual" else NOTHING_TO_COMPACT
            self.state.emit(CompactionEnd(reason, before, before, error=error))
            if reason == "overflow":
                raise WorkbenchError(NOTHING_TO_COMPACT)
            return None
        request = self._summary_request(plan, focus)
        try:
            reply = await self.model_caller.complete(request)
        except asyncio.CancelledError:
            self.state.emit(CompactionEnd(reason, before, error="aborted"))
            raise
        except ModelError as exc:
            self.state.emit(CompactionEnd(reason, before, error=exc.message))
            raise
        message = compaction_plan.summary_message(plan, reply.text, before)
        if reply.usage is not None:  # what the summary cost counts with the branch's calls
            message.details["usage"] = vars(reply.usage)
        await self.state.append(message)
        self.state.emit(CompactionEnd(reason, before, self.state.context_tokens(), message))
        return message

    async def summarize(self, messages: list[Message], focus: str | None = None) -> str:
        """A goal-first summary of `messages` by the compaction summariser, with the files read and
        modified: what a branch left behind (navigation) or brings back (a merge) is worth."""
        plan = compaction_plan.whole_plan(messages)
        body = await self.model_caller.complete_text(self._summary_request(plan, focus))
        return PricedText(compaction_plan.summary_message(plan, body, 0).text, text_usage(body))

    def _summary_request(
        self, plan: compaction_plan.CompactionPlan, focus: str | None
    ) -> ModelRequest:
        """The summariser's request; its answer may take most of the reserve."""
        reserve, _ = self._limits()
        return compaction_plan.summary_request(plan, focus, int(reserve * 0.8))
