"""`workbench --mode json PROMPT`: the session header, then every event as one JSON line.

Sub-agent parents and scripts read this: the same events a front end renders, in order, ending
with `agent_end`. Exit code as in print mode.
"""

from __future__ import annotations

from workbench.agent.events import AgentEnd, Event
from workbench.modes.event_lines import EventLines
from workbench.modes.headless import EXIT_ERROR, EXIT_OK, Interrupts
from workbench.runtime import Workbench, WorkbenchOptions


async def run(options: WorkbenchOptions, prompt: str) -> int:
    workbench = await Workbench.open(options)
    lines = EventLines()
    lines.header(workbench)
    outcome: list[str] = []

    def on_event(event: Event) -> None:
        lines.event(event)
        if isinstance(event, AgentEnd):
            outcome.append(event.stop_reason)

    workbench.subscribe(on_event)
    interrupts = Interrupts(workbench)
    interrupts.install()
    try:
        await workbench.prompt(prompt)
        await workbench.wait_idle()
    finally:
        await workbench.close()
    if interrupts.signal is not None:
        return interrupts.exit_code(EXIT_ERROR)
    return EXIT_ERROR if "error" in outcome else EXIT_OK
