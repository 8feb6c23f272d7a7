"""Every event a front end receives from `Workbench.subscribe`, as one union to `match` on.

The classes live where they are made: the run's and the runtime's in `workbench.agent.events`
(where a front end can import them without loading the runtime), the enforcer's in
`workbench.enforcer.events`, a sweep's in `workbench.sweeps.events`; an outside extension's are
its own.
"""

from __future__ import annotations

from typing import TypeAlias

from workbench.agent.events import AgentEvent, TreeUpdate
from workbench.enforcer.events import SkillLoadEvent, SkillsReloadedEvent
from workbench.extension_api import ExtensionEvent
from workbench.sweeps.events import SweepEnd, SweepProgress, SweepStart

WorkbenchEvent: TypeAlias = (
    AgentEvent
    | TreeUpdate
    | SkillLoadEvent
    | SkillsReloadedEvent
    | SweepStart
    | SweepProgress
    | SweepEnd
    | ExtensionEvent
)
"""One event of the stream: a run's, the tree's, the enforcer's, a sweep's (`workbench.sweeps.
events`), or an outside extension's own
(`ExtensionEvent`, whatever else it emits). A front end matches on the class (`match event:
case MessageUpdate(): ...`) and leaves the rest to `case _:`."""
