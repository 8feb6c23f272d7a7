"""The session's file snapshots, taken around each tool call (`workbench.agent.file_checkpoints`).

The agent's tools call `checkpoint` before and after each tool that runs; the files of the
current branch's workspace are recorded in the session store when they changed (see
`workbench.sessions.workspaces.snapshots`), so that going back in the tree can restore them. A
session kept in memory (`--no-session`) keeps none. When recording fails (a full disk, a file git
cannot read), the run goes on: the user is told once, and no more snapshots are taken.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from workbench.agent.events import Notice
from workbench.errors import WorkbenchError
from workbench.runtime.current import Current
from workbench.runtime.events import WorkbenchEvent

log = logging.getLogger(__name__)


class FileHistory:
    """`FileCheckpoints` for the agent, over the session in use."""

    def __init__(self, current: Current, emit: Callable[[WorkbenchEvent], None]) -> None:
        self._current = current
        self._emit = emit
        self._failed = False

    async def checkpoint(self) -> None:
        session = self._current.session
        if session is None or self._failed:
            return
        try:
            await session.snapshot()
        except Exception as exc:  # the run goes on without snapshots, never stopped by them
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
