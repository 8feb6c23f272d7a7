"""Where the agent's finished messages go: the store protocol, its entries, and an in-memory store.

The git-backed store of `workbench.sessions` implements the same protocol; `--no-session` runs use
`MemoryStore`. An append has finished (is durable) when its coroutine returns: the loop awaits it
before the next step, so a killed process loses no finished message.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from workbench.messages import Message, new_id

EntryType = Literal[
    "user",
    "assistant",
    "tool_result",
    "notice",
    "compaction",
    "branch_summary",
    "checkpoint",
    "merge",
    "label",
    "sweep",
]
MESSAGE_ENTRY_TYPES: frozenset[str] = frozenset(
    {"user", "assistant", "tool_result", "notice", "compaction", "branch_summary"}
)
"""Entry types whose payload is a `Message.to_dict()`; the entry type equals the message role."""


@dataclass(frozen=True)
class Entry:
    """One immutable record of the conversation tree."""

    id: str
    parent: str | None
    type: EntryType
    payload: dict[str, Any]
    timestamp: float = field(default_factory=time.time)
    branch: str = "main"

    def message(self) -> Message | None:
        """The message this entry holds, or None for checkpoint, merge and label entries."""
        return Message.from_dict(self.payload) if self.type in MESSAGE_ENTRY_TYPES else None


def messages_of(entries: list[Entry]) -> list[Message]:
    """The messages on a path of entries, in order."""
    return [m for m in (e.message() for e in entries) if m is not None]


class ConversationStore(Protocol):
    """The conversation of one session: append at the current position, read the current path."""

    session_id: str

    @property
    def branch(self) -> str:
        """The name of the current conversation branch."""
        ...

    async def append(self, type: EntryType, payload: dict[str, Any]) -> Entry:
        """Add an entry after the current position and move the position to it."""
        ...

    def path(self) -> list[Entry]:
        """The entries from the root to the current position."""
        ...

    def close(self) -> None:
        """Release files, locks and processes."""
        ...


class MemoryStore:
    """A store that lives only as long as the process (`--no-session`)."""

    def __init__(self, session_id: str | None = None) -> None:
        self.session_id = session_id or new_id()
        self._entries: list[Entry] = []

    @property
    def branch(self) -> str:
        return "main"

    async def append(self, type: EntryType, payload: dict[str, Any]) -> Entry:
        parent = self._entries[-1].id if self._entries else None
        entry = Entry(id=new_id(), parent=parent, type=type, payload=payload)
        self._entries.append(entry)
        return entry

    def path(self) -> list[Entry]:
        return list(self._entries)

    def close(self) -> None:
        """Nothing to release."""
