"""What an extension's `register(api)` receives.

The enforcer is registered through this API exactly as an outside extension would be. The runtime
creates one `ExtensionAPI` per session and gives it a sink that delivers messages to the agent's
queues and events to front ends.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from workbench.hooks import Handler, HookBus, HookName
from workbench.messages import Message
from workbench.tool import Tool

DeliverAs = Literal["steer", "follow_up", "next_turn"]
"""`steer`: before the next model call, skipping remaining tool calls; `follow_up`: when the agent
would stop; `next_turn`: with the user's next prompt."""

CommandHandler = Callable[[str], Awaitable[str | None] | str | None]


@dataclass
class Command:
    """A slash command an extension offers (`/name args`); the handler returns text to show.
    The runtime offers it as an entry of the command registry (`workbench.runtime.commands`):
    in the app, to editors (ACP) and over RPC, wherever no built-in command has its name."""

    name: str
    description: str
    handler: CommandHandler


class ExtensionEvent(Protocol):
    """What an extension may publish to front ends: a dataclass with a `type` name (the JSON
    modes print it with `workbench.agent.events.event_dict`)."""

    @property
    def type(self) -> str: ...


class ExtensionSink(Protocol):
    """Where an extension's messages and events go; the runtime implements it."""

    def deliver(self, message: Message, deliver_as: DeliverAs) -> None: ...

    def emit(self, event: ExtensionEvent) -> None: ...


class ExtensionAPI:
    """Hooks, tools, commands, messages and events for one extension set."""

    def __init__(self, bus: HookBus, sink: ExtensionSink) -> None:
        self.bus = bus
        self._sink = sink
        self.tools: dict[str, Tool] = {}
        self.commands: dict[str, Command] = {}

    def on(self, hook: HookName, handler: Handler) -> None:
        """Listen on a hook (see `workbench.hooks` for what each one may change)."""
        self.bus.on(hook, handler)

    def register_tool(self, tool: Tool) -> None:
        """Offer a tool to the model; a later registration of the same name replaces it."""
        self.tools[tool.name] = tool

    def register_command(self, name: str, handler: CommandHandler, description: str = "") -> None:
        """Offer `/name` to the user."""
        self.commands[name] = Command(name=name, description=description, handler=handler)

    def send_message(
        self,
        text: str,
        deliver_as: DeliverAs = "steer",
        details: dict[str, Any] | None = None,
    ) -> None:
        """Send a notice to the model, delivered as steering, follow-up or with the next turn."""
        self._sink.deliver(Message(role="notice", text=text, details=details or {}), deliver_as)

    def emit(self, event: ExtensionEvent) -> None:
        """Publish an event (a dataclass with a `type`) to every front end."""
        self._sink.emit(event)
