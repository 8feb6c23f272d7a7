"""The steering and follow-up queues: messages the user sent while the agent was working.

Each queue delivers `one-at-a-time` (one message per model call, the rest wait their turn) or
`all` (everything queued goes in together). Queues can be listed, edited and cleared until the
loop takes their messages.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Literal

from workbench.errors import WorkbenchError
from workbench.messages import Message

QueueMode = Literal["one-at-a-time", "all"]
QUEUE_MODES: tuple[QueueMode, ...] = ("one-at-a-time", "all")


def queue_mode(value: object, setting: str) -> QueueMode:
    """A validated queue mode from settings; anything else is a clear error."""
    for mode in QUEUE_MODES:
        if value == mode:
            return mode
    raise WorkbenchError(
        f"setting {setting} is {value!r}",
        f"use one of: {', '.join(QUEUE_MODES)}",
    )


class MessageQueue:
    """One queue; `on_change` runs after every change so front ends can show the contents."""

    def __init__(
        self,
        name: str,
        mode: QueueMode = "one-at-a-time",
        on_change: Callable[[], None] = lambda: None,
    ) -> None:
        self.name = name
        self.mode = mode
        self._messages: list[Message] = []
        self._on_change = on_change
        self._filled = asyncio.Event()

    def __len__(self) -> int:
        return len(self._messages)

    def texts(self) -> list[str]:
        return [m.text for m in self._messages]

    def skip_reason(self) -> str | None:
        """Why the calls the queued messages interrupt are skipped, when every one of them says
        (`details["skip_reason"]`: an extension's, not the user's); None: the user's steering."""
        reasons = [m.details.get("skip_reason") for m in self._messages]
        return reasons[0] if reasons and all(reasons) else None

    async def arrival(self) -> None:
        """Returns once the queue holds a message (at once when it does already)."""
        await self._filled.wait()

    def _changed(self) -> None:
        if self._messages:
            self._filled.set()
        else:
            self._filled.clear()
        self._on_change()

    def last(self) -> Message | None:
        """The message queued last (its `timestamp` says when)."""
        return self._messages[-1] if self._messages else None

    def push(self, message: Message) -> None:
        self._messages.append(message)
        self._changed()

    def take(self) -> list[Message]:
        """The messages to deliver now, by the queue's mode."""
        if not self._messages:
            return []
        count = len(self._messages) if self.mode == "all" else 1
        taken, self._messages = self._messages[:count], self._messages[count:]
        self._changed()
        return taken

    def edit(self, index: int, text: str) -> None:
        self._check(index)
        self._messages[index].text = text
        self._changed()

    def remove(self, index: int) -> Message:
        self._check(index)
        removed = self._messages.pop(index)
        self._changed()
        return removed

    def clear(self) -> list[Message]:
        cleared, self._messages = self._messages, []
        if cleared:
            self._changed()
        return cleared

    def _check(self, index: int) -> None:
        if not 0 <= index < len(self._messages):
            raise WorkbenchError(
                f"the {self.name} queue has no message {index}",
                f"it holds {len(self._messages)} message(s), numbered from 0",
            )
