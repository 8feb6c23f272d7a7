"""The runtime: `Workbench`, one object per open session that binds the parts below it.

`from workbench.runtime import Workbench, WorkbenchOptions` is the front ends' one entry point;
the modules of this package are the pieces it is made of (see `workbench.py`). May import every
part below it (sessions, agent, enforcer, skills and the foundation); never a front end. The
names load on first use, so that `workbench --help` can read the command registry
(`workbench.runtime.commands`) without importing the runtime's parts.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workbench.runtime.agent_settings import agent_config
    from workbench.runtime.options import WorkbenchOptions, WorkbenchState
    from workbench.runtime.workbench import Workbench

_HOMES = {
    "Workbench": "workbench.runtime.workbench",
    "WorkbenchOptions": "workbench.runtime.options",
    "WorkbenchState": "workbench.runtime.options",
    "agent_config": "workbench.runtime.agent_settings",
}

__all__ = ["Workbench", "WorkbenchOptions", "WorkbenchState", "agent_config"]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_HOMES[name]), name)
