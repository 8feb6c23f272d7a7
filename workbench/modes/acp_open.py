"""Opening a session for ACP, without the protocol's SDK: the checks of the client's folder, the
`Workbench` itself, and what the answer says of the session (its id, modes, model option and
`_meta`) as the JSON the SDK writes. `acp_early` answers an editor's first `session/new` with it
before the SDK is imported (its schema alone takes most of a second), and the SDK-served answers
(`acp`) are built from the same data, so the two cannot drift apart.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.agent.store import MemoryStore
from workbench.agent.subagents.settings import Confirm
from workbench.runtime import Workbench, WorkbenchOptions
from workbench.runtime.events import WorkbenchEvent
from workbench.runtime.listeners import Listener

MODES = (
    ("warn", "Warn", "skill-order violations are flagged"),
    ("block", "Block", "out-of-order skill loads are refused"),
    ("off", "Off", "no skill-graph enforcement"),
)
"""The session modes: the enforcer's (id, name, description)."""
OFFLINE_MODEL = "demo"
"""Offered beside the session's model: the offline demo model works everywhere."""


class BadParams(Exception):
    """A request's params the protocol does not accept (answered as invalid params)."""


def absolute(cwd: str) -> Path:
    """`cwd` as the protocol requires it: an absolute path (a relative one would be read from
    wherever the agent process happens to run)."""
    if not cwd or not Path(cwd).is_absolute():
        raise BadParams(f"cwd must be an absolute path (the protocol requires it), not {cwd!r}")
    return Path(cwd)


def folder(cwd: str) -> Path:
    """A session's folder, checked: a session writes its settings and store there."""
    path = absolute(cwd)
    if not path.is_dir():
        raise BadParams(f"cwd {cwd} is not an existing folder")
    if not os.access(path, os.W_OK | os.X_OK):
        raise BadParams(f"cwd {cwd} is not writable: a session keeps its files there")
    return path


@dataclass(eq=False)
class Relay:
    """A session's events and questions until the `Bench` that sends them to the client exists
    (it needs the SDK): events wait, a question is answered no; `attach` hands both over."""

    held: list[WorkbenchEvent] = field(default_factory=list)
    listener: Listener | None = None
    confirm: Confirm | None = None

    def on_event(self, event: WorkbenchEvent) -> None:
        if self.listener is None:
            self.held.append(event)
        else:
            self.listener(event)

    async def ask(self, title: str, text: str) -> bool:
        return await self.confirm(title, text) if self.confirm is not None else False

    def attach(self, listener: Listener, confirm: Confirm) -> None:
        self.listener, self.confirm = listener, confirm
        held, self.held = self.held, []
        for event in held:
            listener(event)


@dataclass(eq=False)
class Opened:
    """A session opened for a client, and the relay that holds its events."""

    workbench: Workbench
    relay: Relay


async def open_session(
    options: WorkbenchOptions,
    cwd: str,
    mcp_servers: dict[str, Any] | None = None,
    session_id: str | None = None,
    branch: str | None = None,
) -> Opened:
    """Open (or resume: `session_id`, `branch`) a session in the client's folder `cwd` with the
    agent's `options` and the client's MCP servers (`.mcp.json` shaped). Raises `BadParams` for
    a folder that cannot hold a session, `WorkbenchError` as opening does."""
    relay = Relay()
    options = dataclasses.replace(
        options,
        cwd=folder(cwd),
        mcp_servers=mcp_servers,
        store=None if options.store is None else MemoryStore(),  # --no-session
        session_id=session_id,
        branch=branch,
        continue_session=False,
        confirm=relay.ask,
    )
    try:
        workbench = await Workbench.open(options)
    except OSError as exc:  # a folder that looked usable and was not (a read-only mount)
        raise BadParams(f"cannot open a session in {cwd}: {exc.strerror or exc}") from exc
    workbench.subscribe(relay.on_event)
    return Opened(workbench, relay)


def modes(current: str) -> dict[str, Any]:
    """The session's `SessionModeState`."""
    available = [{"id": i, "name": name, "description": text} for i, name, text in MODES]
    return {"currentModeId": current, "availableModes": available}


def config_options(model: str) -> list[dict[str, Any]]:
    """The session's config options (`SessionConfigOptionSelect`): the model."""
    values = [model] if model == OFFLINE_MODEL else [model, OFFLINE_MODEL]
    return [
        {
            "type": "select",
            "id": "model",
            "name": "Model",
            "category": "model",
            "description": "a litellm model string, scripted:PATH or demo",
            "currentValue": model,
            "options": [{"value": v, "name": v} for v in values],
        }
    ]


def session_id(workbench: Workbench) -> str:
    """The ACP id of the session where it stands: `ID@BRANCH`."""
    state = workbench.state()
    return f"{state.session_id}@{state.branch}"


def session_fields(workbench: Workbench) -> dict[str, Any]:
    """What the answer to a new, loaded or forked session says of it: its modes, options, and in
    `_meta` its MCP servers (the editor's among them: each one's state and tools) and the box
    its commands run in (`workbench.sandbox`)."""
    state = workbench.state()
    return {
        "modes": modes(workbench.enforcer_mode),
        "configOptions": config_options(state.model),
        "_meta": {
            "workbench": {"mcpServers": workbench.mcp_report().to_json()},
            "workbench.sandbox": {"mode": state.sandbox},
        },
    }


def new_session_result(workbench: Workbench) -> dict[str, Any]:
    """The `session/new` result (`NewSessionResponse`)."""
    return {"sessionId": session_id(workbench), **session_fields(workbench)}
