"""What the user sends from the editor, and takes back again.

An app slash command runs in the app; one of the session's own (`/compact`, an extension's,
`/skill:<name>`) goes to the session; any other text is a prompt. While the agent works, Enter
steers and Ctrl+J or Alt+Enter queues a follow-up. A message sent before the session has opened
waits for it. Esc stops a run and hands every queued message back to the editor; Alt+Up takes
back the last one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError
from workbench.text import count_of
from workbench.tui import slash
from workbench.tui.components.editor import SubmitKind
from workbench.tui.components.queue_list import QueueList

if TYPE_CHECKING:
    from workbench.runtime import Workbench
    from workbench.tui.host import Host


class Composer:
    def __init__(self, host: Host, run_command: Callable[[str, str], Awaitable[None]]) -> None:
        self.host = host
        self.run_command = run_command
        """Runs an app slash command (the controller's `run`)."""
        self.waiting: tuple[str, SubmitKind] | None = None
        """A message sent before the session opened."""
        self._sending = asyncio.Lock()
        """Messages go to the session one after the other, in the order typed: the second of a
        burst waits until the first has started the run, and so is queued, not refused."""

    async def submit(self, text: str, kind: SubmitKind) -> None:
        """Send a command, a prompt, a steering or a follow-up message. A refused message goes
        back to the editor (when the user has not started another) with what went wrong."""
        parsed = slash.split(text)
        if parsed is not None and slash.command(parsed[0]) is not None:
            await self.run_command(*parsed)
            return
        workbench = self.host.workbench
        if workbench is None:
            self.waiting = (text, kind)
            self.host.query_one(QueueList).show([], [], waiting=text)
            return
        async with self._sending:
            await self._send(workbench, text, kind, parsed)

    async def _send(
        self, workbench: Workbench, text: str, kind: SubmitKind, parsed: tuple[str, str] | None
    ) -> None:
        try:
            name = parsed[0] if parsed is not None else None
            if (
                name is not None
                and name not in workbench.commands
                and not name.startswith("skill:")
            ):
                raise WorkbenchError(f"unknown command /{name}", "/help lists them")
            if workbench.state().busy and parsed is None:
                await (workbench.steer if kind == "send" else workbench.follow_up)(text)
            elif kind == "follow_up" and parsed is None:
                await workbench.follow_up(text)
            else:
                await workbench.prompt(text)
            self.host.transcript.anchor()
        except WorkbenchError as exc:
            self.host.show_error(exc.message, exc.hint)
            if not self.host.editor.text:
                self.host.editor.replace_text(text)

    async def send_waiting(self) -> None:
        """The session is open: send what waited for it."""
        if self.waiting is not None:
            text, kind = self.waiting
            self.waiting = None
            self.host.query_one(QueueList).show([], [])
            await self.submit(text, kind)

    def take_back(self) -> None:
        """Alt+Up: the last queued message back into the editor (above what is there)."""
        workbench = self.host.workbench
        if workbench is None:
            return
        last = workbench.last_queued()
        if last is None:
            return
        name, index, text = last
        try:
            workbench.remove_queued(name, index)
        except WorkbenchError:
            return  # the agent took it meanwhile: it is in the chat now
        rest = self.host.editor.text
        self.host.editor.replace_text(text + (f"\n{rest}" if rest else ""))

    async def abort(self) -> None:
        """Esc: stop the run and give the queued messages back to the editor."""
        editor, workbench = self.host.editor, self.host.workbench
        editor.focus()
        if workbench is None or not workbench.state().busy:
            return
        queued = workbench.queues()
        texts = queued["steering"] + queued["follow_up"]
        workbench.clear_queue()
        if texts:
            current = editor.text
            editor.replace_text("\n\n".join([*texts, current] if current else texts))
        await workbench.abort()
        if texts:
            self.host.note(
                "info", f"{count_of(len(texts), 'queued message')} went back to the editor."
            )
