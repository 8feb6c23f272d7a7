"""What a sweep started from a session tells its front ends while it runs: one union member each
for its start, a run's progress and its end (`workbench.runtime.events.WorkbenchEvent` holds
them). The app's sweep view, the JSON and RPC lines and an editor's text are made from these.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from workbench.agent.events import Event


@dataclass
class SweepStart(Event):
    """The sweep's branches are forked and its runs queued: `sweep` is its record
    (`Sweep.to_record`), `jobs` how many run at once."""

    type: ClassVar[str] = "sweep_start"
    sweep: dict[str, Any]
    jobs: int


@dataclass
class SweepProgress(Event):
    """One run changed: its outcome, its figures so far (`run`, as in the comparison's `runs`)
    and the tool its agent is running now (`tool`, None between tools)."""

    type: ClassVar[str] = "sweep_progress"
    sweep: str
    run: dict[str, Any]
    tool: str | None = None


@dataclass
class SweepEnd(Event):
    """Every run ended or was stopped: `comparison` is the document `workbench sweep --format
    json` prints (runs, then the variants best first); `stopped` says why runs were cut short."""

    type: ClassVar[str] = "sweep_end"
    sweep: str
    comparison: dict[str, Any]
    stopped: str | None = None
