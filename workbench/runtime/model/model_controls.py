"""The model commands of `Workbench`: `/model` (a name, or a pick from the models offered) and
the model a resumed session comes back with. A model the branch's replies recorded comes with
the endpoint they reached it at (see `session_model`)."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable

from workbench.agent.events import ModelChange
from workbench.agent.loop import Agent
from workbench.agent.models.catalog import ModelChoice, model_choices
from workbench.agent.models.client import ModelClient
from workbench.runtime.current import Current
from workbench.runtime.events import WorkbenchEvent
from workbench.runtime.model.session_model import chosen_model, recorded_models
from workbench.runtime.options import WorkbenchOptions


class ModelControls:
    """Switch the agent's model; list the models `/model` offers."""

    def __init__(
        self,
        current: Current,
        agent: Agent,
        options: WorkbenchOptions,
        open_model: Callable[[str | None, str | None], Awaitable[ModelClient]],
        emit: Callable[[WorkbenchEvent], None],
    ) -> None:
        self._current = current
        self._agent = agent
        self._options = options
        self._open_model = open_model
        self._emit = emit

    async def set_model(self, name: str | None) -> None:
        """Switch models (a run uses the new one from its next call): `name` with the endpoint
        this branch recorded for it; None: the branch's latest model, if it records one."""
        session = self._current.session
        pulled = session.store.state.remote if session is not None else ""
        messages = self._agent.state.messages
        model = await chosen_model(self._open_model, self._options, messages, pulled, name)
        if model is not None:
            self._agent.state.model = model
            info = model.info
            self._emit(ModelChange(info.name, info.offline, info.context_window))

    def model_choices(self) -> list[ModelChoice]:
        """What `/model` offers: this branch's recent models, the configured, the known ones."""
        recent = [model.name for model in recorded_models(self._agent.state.messages)]
        return model_choices(recent, self._current.settings, os.environ)
