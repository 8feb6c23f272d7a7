"""Whether the running task's event loop is the run's own: a `-p` or JSON run, where no keys,
redraws or editor wait on the loop.

Work that hands itself to another thread to keep a shared loop free (the model's stream on the
background loop, the session's git writes on its worker thread) pays a wake-up for each hand-over,
which on a busy machine waits for a core, several times between a tool's result and the next
request. A run that owns its loop does that work in place. `claim` says so for the task that runs
the prompt and every task it starts (a context variable: other loops, other tests, the app are
untouched), and gives the loop the executor that runs litellm's dispatch in place (`dispatch`).
"""

from __future__ import annotations

import asyncio
from contextvars import ContextVar

from workbench.agent.models.dispatch import DispatchExecutor

_owned: ContextVar[bool] = ContextVar("workbench_own_loop", default=False)


def claim() -> None:
    """This task and the tasks it starts have the running loop to themselves."""
    _owned.set(True)
    asyncio.get_running_loop().set_default_executor(DispatchExecutor(thread_name_prefix="asyncio"))


def owned() -> bool:
    """Whether the running task's loop is its run's own (`claim`)."""
    return _owned.get()
