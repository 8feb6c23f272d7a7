"""Sharing in `Workbench`: what the app's `/push` and `/export` call.

    result = await wb.push()                       # PushResult; .render_text() for the chat
    result = await wb.push("origin", redact=True)  # SecretsFound (a WorkbenchError) names entries
    result = await wb.export()                     # ExportResult: the current branch as HTML,
    result = await wb.export("exp", "md", path)    # written to `path` (default: project folder)
    result = await wb.export(redact=True)          # credentials replaced (else SecretsFound)
    text = await wb.export_text("exp", "md")       # Markdown to paste, nothing written

Pushing reads refs only, so it runs beside the agent (on a thread of its own): what is pushed is
the session as it stood when the push began. An export reads on the session's git worker, in
order with the appends. Their modules load on first use, off the start-up path.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.errors import UsageError

if TYPE_CHECKING:
    from workbench.runtime.current import Current
    from workbench.sessions.export.branch_export import ExportResult
    from workbench.sessions.session import Session
    from workbench.sessions.share.push import PushResult


class ShareControls:
    """Push and export the session in use (`current.session`: `resume` may replace it)."""

    def __init__(self, current: Current, project_root: Path) -> None:
        self._current = current
        self._project_root = project_root

    def _stored_session(self, command: str) -> Session:
        if self._current.session is None:
            raise UsageError(
                f"{command} needs a stored session; this one is kept in memory only",
                "start workbench without --no-session",
            )
        return self._current.session

    async def push(self, remote: str | None = None, redact: bool = False) -> PushResult:
        """Push this session to `remote` (default: the branch's upstream remote, else origin)."""
        from workbench.sessions.share.push import push_session

        session = self._stored_session("push")
        return await asyncio.to_thread(push_session, session.location, session.id, remote, redact)

    async def export(
        self,
        branch: str | None = None,
        fmt: str = "html",
        path: Path | None = None,
        redact: bool = False,
    ) -> ExportResult:
        """Write `branch` (default: the current one) as HTML or Markdown to `path` (default:
        `workbench-<session>-<branch>.<fmt>` in the project folder)."""
        from workbench.sessions.export.branch_export import default_path, write_export

        session = self._stored_session("export")
        name = branch or session.branch
        target = path or default_path(self._project_root, session.id, name, fmt)
        return await session.store.run(
            lambda: write_export(session.store, session.workspaces, name, fmt, target, redact)
        )

    async def export_text(
        self, branch: str | None = None, fmt: str = "md", redact: bool = False
    ) -> str:
        """`branch` rendered as text, nothing written (Markdown to paste into a pull request)."""
        from workbench.sessions.export.branch_export import export_text

        session = self._stored_session("export")
        text, _ = await session.store.run(
            lambda: export_text(session.store, session.workspaces, branch, fmt, redact)
        )
        return text
