"""The session's file snapshots, taken around each tool call (`workbench.agent.file_checkpoints`).

The agent's tools call `checkpoint` before and after each tool that runs; the files of the
current branch's workspace are recorded in the session store when they changed (see
`workbench.sessions.workspaces.snapshots`), so that going back in the tree can restore them. A
session kept in memory (`--no-session`) keeps none. When recording fails (a full disk, a file git
cannot read), the run goes on: the user is told once, and no more snapshots are taken.

A snapshot the run need not wait for (`checkpoint_soon`) takes its place among the session's
writes at once and is recorded while the run goes on: git scanning the workspace is then off the
way from a tool's result to the next model request.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from workbench.agent.events import AgentEvent, Notice
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from workbench.sessions.session import Session

log = logging.getLogger(__name__)


class FileHistory:
    """`FileCheckpoints` for the agent, over the session in use."""

    def __init__(
        self, session: Callable[[], Session | None], emit: Callable[[AgentEvent], None]
    ) -> None:
        self._session = session
        """The session in use (None: kept in memory); the runtime may put another in place."""
        self._emit = emit
        self._failed = False
        self._queued: set[asyncio.Task[None]] = set()

    async def checkpoint(self) -> None:
        session = self._session()
        if session is not None and not self._failed:
            await self._recorded(session.snapshot_soon())

    def checkpoint_soon(self) -> None:
        session = self._session()
        if session is not None and not self._failed:
            task = asyncio.ensure_future(self._recorded(session.snapshot_soon()))
            self._queued.add(task)
            task.add_done_callback(self._queued.discard)

    async def settle(self) -> None:
        while self._queued:
            await asyncio.gather(*self._queued)

    async def _recorded(self, snapshot: asyncio.Future[None]) -> None:
        try:
            await asyncio.shield(snapshot)
        except Exception as exc:  # the run goes on without snapshots, never stopped by them
            if self._failed:
                return
            self._failed = True
            why = exc.message if isinstance(exc, WorkbenchError) else repr(exc)
            log.warning("file snapshot failed: %s", why, exc_info=exc)
            self._emit(
                Notice(
                    f"File snapshots stopped for this session: {why}. Going back in the tree "
                    "cannot restore files changed from now on.",
                    "warning",
                )
            )
