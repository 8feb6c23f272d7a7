"""The runtime: `Workbench`, one object per open session that binds the parts below it.

`from workbench.runtime import Workbench, WorkbenchOptions` is the front ends' one entry point;
the modules of this package are the pieces it is made of (see `workbench.py`). May import every
part below it (sessions, agent, enforcer, skills and the foundation); never a front end.
"""

from workbench.runtime.agent_settings import agent_config
from workbench.runtime.options import WorkbenchOptions, WorkbenchState
from workbench.runtime.workbench import Workbench

__all__ = ["Workbench", "WorkbenchOptions", "WorkbenchState", "agent_config"]
