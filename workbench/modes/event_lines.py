"""One JSON object per line on stdout: the session header, then every event.

Shared by `--mode json` and `--mode rpc`, so that scripts, editors and sub-agent parents read one
format. Each line is flushed at once: a reader sees every event as it happens.
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from workbench.agent.events import event_dict
from workbench.runtime import Workbench


class EventLines:
    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout

    def write(self, data: dict[str, Any]) -> None:
        self.stream.write(json.dumps(data, ensure_ascii=False) + "\n")
        self.stream.flush()

    def event(self, event: Any) -> None:
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
