"""How `workbench --mode acp` starts, so that an editor's first answers come at once.

`initialize` is answered by hand before the protocol's SDK is imported (`acp_handshake`); then a
warm interpreter already running (`processes.forkserver`, with the SDK and litellm imported)
serves the rest of the connection. Without one, this process imports the SDK and serves; litellm
starts loading once the first session is open, so that `session/new` does not wait for its
import, and so does a warm interpreter for the editor's next agent.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from workbench.processes import forkserver

if TYPE_CHECKING:
    from workbench.runtime import WorkbenchOptions


ANSWERED = "WORKBENCH_ACP_ANSWERED"
"""Set for a warm child whose client has answered `initialize` already (taken out at once, so
no process the child starts inherits it)."""


def serve(argv: Sequence[str], model: str | None, options: Callable[[], WorkbenchOptions]) -> int:
    """Serve ACP on stdio until the client closes it; the exit code. `argv` is the command line
    a warm child runs again, `model` the `--model` given, `options` the session options."""
    from workbench.modes import acp_handshake

    unread = b""
    if os.environ.pop(ANSWERED, None) is None:  # not a warm child its client handed over to
        first = acp_handshake.read_line()
        if not acp_handshake.answer(first):
            unread = first
        elif forkserver.enabled(os.environ):
            os.environ[ANSWERED] = "1"
            code = forkserver.run_warm(forkserver.CLI_ENTRY, argv, forkserver.WARM_UP, start=False)
            if code is not None:
                return code
            del os.environ[ANSWERED]
    from workbench.agent.models.choice import uses_litellm
    from workbench.processes import heavy_imports

    with heavy_imports.quick():  # the SDK's schema: about 300 pydantic models
        from workbench.modes import acp

    loads = model is None or uses_litellm(model)
    return asyncio.run(acp.run(options(), unread, _load if loads else None))


def _load() -> None:
    """litellm into this process, and a warm interpreter for the editor's next agent."""
    from workbench.agent.models.litellm_client import preload

    preload()
    forkserver.start_soon(forkserver.WARM_UP, os.environ)
