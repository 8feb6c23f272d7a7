"""`workbench --mode json PROMPT`: the session header, then every event as one JSON line.

Sub-agent parents and scripts read this: the same events a front end renders, in order, ending
with `agent_end`. Exit code as in print mode (1 as well for a refused or unknown `/skill:NAME`).
"""

from __future__ import annotations

from workbench.agent.events import AgentEnd
from workbench.modes.event_lines import EventLines
from workbench.modes.headless import (
    EXIT_ERROR,
    EXIT_OK,
    Interrupts,
    refused_skill_command,
    run_prompt,
)
from workbench.runtime import Workbench, WorkbenchOptions
from workbench.runtime.events import WorkbenchEvent


async def run(options: WorkbenchOptions, prompt: str) -> int:
    lines = EventLines()
    outcome: list[str] = []

    def on_event(event: WorkbenchEvent) -> None:
        lines.event(event)
        if isinstance(event, AgentEnd):
            outcome.append(event.stop_reason)
        elif refused_skill_command(event):
            outcome.append("error")

    def listen(workbench: Workbench, interrupts: Interrupts) -> None:
        lines.on_closed = interrupts.output_closed
        lines.header(workbench)
        workbench.subscribe(on_event)

    signalled = await run_prompt(options, prompt, listen)
    if signalled is not None:
        return signalled
    return EXIT_ERROR if "error" in outcome else EXIT_OK
