"""The model a session was run with comes back with it.

Every reply records the model that wrote it and, for a server, its endpoint (never the key: see
`model_record`). A reopened session uses the latest one on its branch unless this run names a
model (`--model` wins; `--api-base` replaces the recorded endpoint). A pulled session's
endpoint is someone else's server: the user's key is sent there only after the user said yes
(the app's dialog); a run that cannot ask refuses and names the flag that says yes.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from workbench.agent.events import Notice
from workbench.agent.models.choice import cache_policy, model_name, open_model
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from workbench.agent.models.client import ModelClient
    from workbench.agent.subagents.settings import Confirm
    from workbench.messages import Message
    from workbench.runtime.current import Current
    from workbench.runtime.options import WorkbenchOptions
    from workbench.skills.graph import SkillGraph


@dataclass(frozen=True)
class RecordedModel:
    """A model a reply of the session was written by, with the endpoint it was reached at."""

    name: str
    api_base: str | None = None


def recorded_models(messages: list[Message]) -> list[RecordedModel]:
    """The models the replies in `messages` were written by, the latest first, each once."""
    seen: list[RecordedModel] = []
    for message in reversed(messages):
        record = message.details.get("model") if message.role == "assistant" else None
        if not isinstance(record, dict) or not isinstance(record.get("name"), str):
            continue
        endpoint = record.get("api_base")
        model = RecordedModel(record["name"], endpoint if isinstance(endpoint, str) else None)
        if model not in seen:
            seen.append(model)
    return seen


async def model_to_reopen(
    options: WorkbenchOptions,
    messages: list[Message],
    pulled_from: str,
    confirm: Confirm | None,
) -> RecordedModel | None:
    """The recorded model to open the session with, or None to choose as a new session does
    (this run named a model, or the branch records none). An `--api-base` of this run replaces
    the recorded endpoint (and is the user's yes to it). `pulled_from` is the remote a pulled
    session came from ("" for one made here)."""
    if options.model:
        return None
    recorded = recorded_models(messages)
    if not recorded:
        return None
    latest = recorded[0]
    if options.api_base:
        return RecordedModel(latest.name, options.api_base)
    if latest.api_base is None or not pulled_from:
        return latest
    question = (
        f"This session was pulled from {pulled_from}. Its model {latest.name} was reached at "
        f"{latest.api_base}, someone else's endpoint: send your API key there?"
    )
    if confirm is None:
        raise WorkbenchError(
            f"this session was pulled from {pulled_from}: its model {latest.name} was reached "
            f"at {latest.api_base}, someone else's endpoint, and your key is not sent there "
            "without asking",
            f"to use it, pass --api-base {latest.api_base}; or choose a model with --model",
        )
    if await confirm("Someone else's endpoint", question):
        return latest
    return RecordedModel(latest.name)


async def reopen_model(
    open_model: Callable[[str | None, str | None], Awaitable[ModelClient]],
    options: WorkbenchOptions,
    messages: list[Message],
    pulled_from: str,
) -> tuple[ModelClient, list[Notice]]:
    """The model the branch's replies were written by, else the one a new session would use,
    with a notice saying why the recorded one could not open."""
    recorded = await model_to_reopen(options, messages, pulled_from, options.confirm)
    if recorded is None:
        return await open_model(options.model, None), []
    try:
        return await open_model(recorded.name, recorded.api_base), []
    except WorkbenchError as exc:
        notice = Notice(
            f"the session's model {recorded.name} did not open ({exc.message}); "
            "using the default model instead (/model chooses another)",
            "warning",
        )
        return await open_model(None, None), [notice]


async def open_session_model(
    current: Current,
    options: WorkbenchOptions,
    skills: Callable[[], SkillGraph],
    requested: str | None,
    api_base: str | None = None,
) -> ModelClient:
    """The model `requested` (or the configured one) for the session. Scripts (`scripted:PATH`)
    are named relative to the folder workbench started in; `api_base` (a recorded endpoint)
    stands in for `--api-base` when this run gave none."""
    name = model_name(requested, current.settings, os.environ)
    return await asyncio.to_thread(
        open_model,
        name,
        current.settings,
        options.cwd.resolve(),
        skills,
        options.api_base or api_base,
        options.api_key,
        lambda: current.cwd,
        cache_policy(current.settings, options.no_cache),
    )


async def chosen_model(
    open_model: Callable[[str | None, str | None], Awaitable[ModelClient]],
    options: WorkbenchOptions,
    messages: list[Message],
    pulled_from: str,
    name: str | None,
) -> ModelClient | None:
    """The model `/model NAME` picks, with the endpoint the branch recorded for it (a pulled
    session's asked about first, as on opening); `name` None: the branch's latest model (a
    resumed session), or None when the branch records none."""
    recorded_here = options if options.model is None else replace(options, model=None)
    mine = [m for m in messages if name is None or _written_by(m) == name]
    recorded = await model_to_reopen(recorded_here, mine, pulled_from, options.confirm)
    if recorded is None:
        return None if name is None else await open_model(name, None)
    return await open_model(recorded.name, recorded.api_base)


def _written_by(message: Message) -> str | None:
    record = message.details.get("model") if message.role == "assistant" else None
    return record.get("name") if isinstance(record, dict) else None
