"""The skill commands of `Workbench`: what the user asks of the enforcer directly."""

from __future__ import annotations

from collections.abc import Callable

from workbench.agent.events import Notice
from workbench.agent.loop import Agent
from workbench.agent.tools.allowlist import offered_tools
from workbench.enforcer.core import Enforcer
from workbench.enforcer.settings import MODES
from workbench.enforcer.skill_view import SKILL_TOOLS
from workbench.enforcer.state import LoadingState
from workbench.errors import WorkbenchError
from workbench.extension_api import DeliverAs, ExtensionAPI
from workbench.runtime.current import Current
from workbench.runtime.events import WorkbenchEvent


class SkillControls:
    """The enforcer's commands for the user, and the skill tools offered to the agent."""

    def __init__(
        self,
        enforcer: Enforcer,
        agent: Agent,
        api: ExtensionAPI,
        allowed: list[str] | None,
        emit: Callable[[WorkbenchEvent], None],
        current: Current,
    ) -> None:
        self._enforcer = enforcer
        self._current = current
        remembered = current.session.store.state.enforcer_mode if current.session else ""
        if remembered in MODES:  # set for this session before (an editor's mode menu)
            enforcer.mode = remembered
        self._agent = agent
        self._api = api
        self._allowed = allowed
        """The tools the session may offer (`--tools`); None: all."""
        self._emit = emit

    def offer_tools(self) -> bool:
        """Offer the enforcer's tools that its skill set has use for (none without skills);
        True when the offer changed."""
        wanted = {
            tool.name: tool
            for tool in offered_tools(self._api.tools.values(), self._allowed)
            if tool.name in SKILL_TOOLS and tool.name not in self._enforcer.withheld_tools()
        }
        current = {name for name in self._agent.state.tools if name in SKILL_TOOLS}
        if current == set(wanted):
            return False
        for name in current - set(wanted):
            del self._agent.state.tools[name]
        self._agent.state.tools.update(wanted)
        return True

    def set_enforcer_mode(self, mode: str) -> None:
        """Switch enforcement for this session, kept with it (a reopened session comes back
        in this mode); the settings file is not changed."""
        if mode not in MODES:
            raise WorkbenchError(f"no enforcer mode {mode!r}", f"modes: {', '.join(MODES)}")
        self._enforcer.mode = mode
        session = self._current.session
        if session is not None and session.store.state.enforcer_mode != mode:
            session.store.state.enforcer_mode = mode
            session.store.save_state()

    def loading_state(self) -> LoadingState:
        """Loaded skills by layer, the active compound and the load history of this branch."""
        return self._enforcer.state

    def skills_status(self) -> str:
        """The `/skill-graph-status` text."""
        return self._enforcer.status()

    async def activate(self, name: str) -> None:
        """Activate a skill for the user: checked like a read; its body goes to the model now
        (as steering while the agent works) or with the next prompt. Refused: WorkbenchError."""
        outcome = self._enforcer.activate_for_user(name, self._delivery())
        if outcome.is_error:
            raise WorkbenchError(outcome.text, "the skill graph panel lists the skills there are")
        self._emit(Notice(f"activated {name.strip()}: {self._when()}"))

    async def deactivate(self, name: str) -> None:
        """Withdraw a loaded skill; the model is told (now or with the next prompt)."""
        result = self._enforcer.deactivate_for_user(name, self._delivery())
        if result.is_error:
            raise WorkbenchError(result.text)
        self._emit(Notice(f"deactivated {name.strip()}: {self._when()}"))

    def _delivery(self) -> DeliverAs:
        return "steer" if self._agent.busy else "next_turn"

    def _when(self) -> str:
        return (
            "the model is told before its next step"
            if self._agent.busy
            else "the model is told with your next message"
        )
