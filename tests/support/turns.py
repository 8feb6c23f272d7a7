"""Driving an opened `Workbench` in a test: a prompt run to its end, and the events it sent."""

from __future__ import annotations

from typing import Any

from workbench.agent.events import Event
from workbench.runtime import Workbench


def recorded(workbench: Workbench) -> list[Event]:
    """Every event the workbench sends from now on, in order."""
    events: list[Event] = []
    workbench.subscribe(events.append)
    return events


async def run(workbench: Workbench, text: str) -> str | None:
    """Send `text` and wait until the agent is idle; how the run ended."""
    await workbench.prompt(text)
    return await workbench.wait_idle()


def of_type(events: list[Event], name: str) -> list[dict[str, Any]]:
    return [e.to_dict() for e in events if e.type == name]
