"""The message queues of `Workbench`: what the user (or an extension) has queued for the agent."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from workbench.agent.events import QueueUpdate
from workbench.agent.loop import Agent
from workbench.agent.queues import MessageQueue
from workbench.errors import WorkbenchError
from workbench.extension_api import DeliverAs
from workbench.messages import Message

QueueName = Literal["steering", "follow_up"]


class QueueControls:
    """Mixed into `Workbench`; uses the attributes declared here."""

    agent: Agent
    _next_turn: list[Message]
    _emit: Callable[[Any], None]

    def _queues_changed(self) -> None:
        self._emit(QueueUpdate(self.agent.steering.texts(), self.agent.follow_ups.texts()))

    def queues(self) -> dict[str, list[str]]:
        return {"steering": self.agent.steering.texts(), "follow_up": self.agent.follow_ups.texts()}

    def _queue(self, name: QueueName) -> MessageQueue:
        if name not in ("steering", "follow_up"):
            raise WorkbenchError(f"no queue named {name!r}", "queues: steering, follow_up")
        return self.agent.steering if name == "steering" else self.agent.follow_ups

    def edit_queued(self, name: QueueName, index: int, text: str) -> None:
        self._queue(name).edit(index, text)

    def remove_queued(self, name: QueueName, index: int) -> None:
        self._queue(name).remove(index)

    def clear_queue(self, name: QueueName | None = None) -> None:
        for queue in (self._queue(name),) if name else (self.agent.steering, self.agent.follow_ups):
            queue.clear()

    def deliver(self, message: Message, deliver_as: DeliverAs) -> None:
        """Messages from extensions: steering and follow-ups while the agent works; otherwise
        (and for `next_turn`) they go with the user's next prompt."""
        busy = hasattr(self, "agent") and self.agent.busy
        if deliver_as == "steer" and busy:
            self.agent.steering.push(message)
        elif deliver_as == "follow_up" and busy:
            self.agent.follow_ups.push(message)
        else:
            self._next_turn.append(message)
