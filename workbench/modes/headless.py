"""What the headless modes share: opening the session and turning signals into an abort.

SIGINT and SIGTERM abort the run (the stream is closed, bash process groups are killed, the turn
is recorded as aborted) instead of killing the process mid-write; a second signal exits at once.
A reader that closed stdout aborts the run the same way, as if SIGPIPE had come (exit 141).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from workbench.agent.models import own_loop
from workbench.enforcer.events import SkillLoadEvent
from workbench.runtime import Workbench, WorkbenchOptions

EXIT_OK, EXIT_ERROR = 0, 1


def refused_skill_command(event: object) -> bool:
    """A `/skill:NAME` the user typed that was refused or names no skill: the prompt failed."""
    return isinstance(event, SkillLoadEvent) and event.how == "command" and event.blocked


@dataclass
class Interrupts:
    """Installed on the running loop; `signal` is the last one received (None if none)."""

    workbench: Workbench
    on_signal: Callable[[], None] = lambda: None
    signal: int | None = None
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    def install(self) -> None:
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, self._received, signum)

    def _received(self, signum: int) -> None:
        if self.signal is not None:
            os._exit(128 + signum)
        self._stop(signum)

    def output_closed(self) -> None:
        """Nobody reads stdout any more: abort as SIGPIPE would (unless already stopping)."""
        if self.signal is None:
            self._stop(signal.SIGPIPE)

    def _stop(self, signum: int) -> None:
        self.signal = signum
        self.on_signal()
        task = asyncio.get_running_loop().create_task(self.workbench.abort())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def exit_code(self, otherwise: int) -> int:
        return 128 + self.signal if self.signal is not None else otherwise


async def run_prompt(
    options: WorkbenchOptions, prompt: str, listen: Callable[[Workbench, Interrupts], object]
) -> int | None:
    """Open the session, let `listen` subscribe, run `prompt` to its end and close the session.
    Returns the exit code of a signal (or closed output) that aborted the run, or None. The run
    has its loop to itself (`own_loop`): the model's stream is read, the session written, on it,
    once a signal can no longer cut a write in two (it is handled by the loop from then on)."""
    workbench = await Workbench.open(options)
    interrupts = Interrupts(workbench)
    listen(workbench, interrupts)
    interrupts.install()
    own_loop.claim()
    try:
        if interrupts.signal is None:  # else the reader left before the run began
            await workbench.prompt(prompt)
        if interrupts.signal is not None:  # it came while the run was starting
            await workbench.abort()
        await workbench.wait_idle()
    finally:
        await workbench.close()
    return None if interrupts.signal is None else interrupts.exit_code(EXIT_ERROR)


def read_prompt(words: list[str]) -> str | None:
    """The prompt from the command line, or from stdin when it is piped; None when neither."""
    if words:
        return " ".join(words)
    if not sys.stdin.isatty():
        text = sys.stdin.read()
        return text if text.strip() else None
    return None
