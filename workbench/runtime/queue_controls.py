"""The message queues of `Workbench`: what the user (or an extension) has queued for the agent."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from workbench.agent.events import QueueUpdate
from workbench.agent.loop import Agent
from workbench.agent.queues import MessageQueue
from workbench.errors import WorkbenchError
from workbench.extension_api import DeliverAs
from workbench.messages import Message
from workbench.runtime.events import WorkbenchEvent

QueueName = Literal["steering", "follow_up"]


class QueueControls:
    """The agent's steering and follow-up queues, and the messages held for the next prompt."""

    def __init__(
        self, agent: Agent, next_turn: list[Message], emit: Callable[[WorkbenchEvent], None]
    ) -> None:
        self._agent = agent
        self._next_turn = next_turn
        self._emit = emit

    def changed(self) -> None:
        """Tell the front ends what is queued now (the agent calls this on every change)."""
        self._emit(QueueUpdate(self._agent.steering.texts(), self._agent.follow_ups.texts()))

    def queues(self) -> dict[str, list[str]]:
        return {
            "steering": self._agent.steering.texts(),
            "follow_up": self._agent.follow_ups.texts(),
        }

    def _queue(self, name: QueueName) -> MessageQueue:
        if name not in ("steering", "follow_up"):
            raise WorkbenchError(f"no queue named {name!r}", "queues: steering, follow_up")
        return self._agent.steering if name == "steering" else self._agent.follow_ups

    def edit_queued(self, name: QueueName, index: int, text: str) -> None:
        self._queue(name).edit(index, text)

    def remove_queued(self, name: QueueName, index: int) -> None:
        self._queue(name).remove(index)

    def last_queued(self) -> tuple[QueueName, int, str] | None:
        """The message queued last, steering or follow-up: its queue, index and text (what
        Alt+Up takes back)."""
        names: tuple[QueueName, ...] = ("steering", "follow_up")
        queued = [
            (message.timestamp, name, len(queue) - 1, message.text)
            for name in names
            if (message := (queue := self._queue(name)).last()) is not None
        ]
        if not queued:
            return None
        _, name, index, text = max(queued)
        return name, index, text

    def clear_queue(self, name: QueueName | None = None) -> None:
        agent = self._agent
        for queue in (self._queue(name),) if name else (agent.steering, agent.follow_ups):
            queue.clear()

    def deliver(self, message: Message, deliver_as: DeliverAs) -> None:
        """Messages from extensions: steering and follow-ups while the agent works; otherwise
        (and for `next_turn`) they go with the user's next prompt."""
        busy = self._agent.busy
        if deliver_as == "steer" and busy:
            self._agent.steering.push(message)
        elif deliver_as == "follow_up" and busy:
            self._agent.follow_ups.push(message)
        else:
            self._next_turn.append(message)
