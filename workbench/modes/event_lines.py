"""One JSON object per line on stdout: the session header, then every event.

Shared by `--mode json` and `--mode rpc`, so that scripts, editors and sub-agent parents read one
format. Each line is flushed at once: a reader sees every event as it happens. When the reader
goes away, writing stops and `on_closed` is called once (the modes abort the run and exit 141).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, TextIO

from workbench.agent.events import event_dict
from workbench.modes.closed_output import silence_stdout
from workbench.runtime import Workbench
from workbench.runtime.events import WorkbenchEvent


class EventLines:
    def __init__(
        self, stream: TextIO | None = None, on_closed: Callable[[], None] = lambda: None
    ) -> None:
        self.stream = stream or sys.stdout
        self.on_closed = on_closed
        self.closed = False

    def write(self, data: dict[str, Any]) -> None:
        if self.closed:
            return
        try:
            self.stream.write(json.dumps(data, ensure_ascii=False) + "\n")
            self.stream.flush()
        except BrokenPipeError:
            self.closed = True
            if self.stream is sys.stdout:
                silence_stdout()
            self.on_closed()

    def event(self, event: WorkbenchEvent) -> None:
        self.write(event_dict(event))

    def header(self, workbench: Workbench) -> None:
        """The `session` line: id, branch, model (and whether it is offline), cwd."""
        state = workbench.state()
        self.write(
            {
                "type": "session",
                "id": state.session_id,
                "branch": state.branch,
                "model": state.model,
                "offline": state.offline,
                "cwd": state.cwd,
            }
        )
