"""A test client for `workbench --mode acp`: the protocol's own Python SDK (`acp`) driving a real
workbench process over stdio, recording every `session/update` it receives."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, spawn_agent_process, text_block
from acp.connection import StreamDirection, StreamEvent
from acp.schema import AllowedOutcome, ClientCapabilities, DeniedOutcome, Implementation

TIMEOUT = 60.0
"""A limit against a hang, never a measure of speed: on a loaded 2-core machine a process that
imports litellm takes 15 s or more before its first event."""


class RecordingClient:
    """Answers permission questions with `permission` ("allow", "reject" or None: cancelled)
    and keeps every update, with the time it arrived."""

    def __init__(self, permission: str | None = "allow") -> None:
        self.updates: list[tuple[str, Any, float]] = []
        self.permissions: list[Any] = []
        self.permission = permission
        self.process: Any = None
        """The agent's process (an `asyncio.subprocess.Process`)."""
        self.incoming: list[dict[str, Any]] = []
        """Every JSON-RPC message the agent sent, as it came (responses the SDK drops too)."""
        self._changed = asyncio.Event()

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((session_id, update, time.monotonic()))
        self._changed.set()

    async def request_permission(self, session_id: str, tool_call: Any, options: Any, **kw: Any):
        from acp import RequestPermissionResponse

        self.permissions.append((session_id, tool_call, options))
        if self.permission is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=self.permission)
        )

    def observe(self, event: StreamEvent) -> None:
        if event.direction is StreamDirection.INCOMING:
            self.incoming.append(event.message)
            self._changed.set()

    async def wait_message(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = TIMEOUT
    ) -> dict[str, Any]:
        """The first message from the agent that `predicate` accepts (waiting for it)."""
        deadline = time.monotonic() + timeout
        while True:
            found = next((m for m in self.incoming if predicate(m)), None)
            if found is not None:
                return found
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"no matching message within {timeout} s: {self.incoming[-5:]}"
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), remaining)

    def of(self, session_id: str, kind: str | None = None) -> list[Any]:
        return [
            u
            for s, u, _ in self.updates
            if s == session_id and (kind is None or u.session_update == kind)
        ]

    def text(self, session_id: str, kind: str = "agent_message_chunk") -> str:
        return "".join(u.content.text for u in self.of(session_id, kind))

    async def wait_for(self, predicate: Callable[[Any], bool], timeout: float = TIMEOUT) -> Any:
        deadline = time.monotonic() + timeout
        seen = 0
        while True:
            for _, update, _ in self.updates[seen:]:
                if predicate(update):
                    return update
            seen = len(self.updates)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                kinds = [u.session_update for _, u, _ in self.updates[-20:]]
                raise AssertionError(f"no matching update within {timeout} s; last: {kinds}")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), remaining)


def prompt_blocks(text: str) -> list[Any]:
    return [text_block(text)]


@contextlib.asynccontextmanager
async def acp_workbench(
    cwd: Path, *args: str, client: RecordingClient | None = None
) -> AsyncIterator[tuple[Any, RecordingClient, Any]]:
    """`workbench --mode acp ARGS` started in `cwd`, initialized; yields (connection, client,
    initialize response). Its stderr goes to `cwd/../acp-stderr.log`."""
    client = client or RecordingClient()
    log = (cwd.parent / "acp-stderr.log").open("a", encoding="utf-8")
    try:
        async with spawn_agent_process(
            client,
            sys.executable,
            "-m",
            "workbench",
            "--mode",
            "acp",
            *args,
            env=dict(os.environ),
            cwd=cwd,
            transport_kwargs={"stderr": log},
            observers=[client.observe],
        ) as (conn, process):
            client.process = process
            init = await asyncio.wait_for(
                conn.initialize(
                    protocol_version=PROTOCOL_VERSION,
                    client_capabilities=ClientCapabilities(),
                    client_info=Implementation(name="workbench-tests", version="1"),
                ),
                TIMEOUT,
            )
            yield conn, client, init
    finally:
        log.close()
