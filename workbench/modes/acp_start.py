"""How `workbench --mode acp` starts, so that an editor's first answers come at once.

`initialize` is answered by hand before the protocol's SDK is imported (`acp_handshake`); then a
warm interpreter already running (`processes.forkserver`, with the SDK and litellm imported)
serves the rest of the connection. Without one, this process answers the first `session/new` by
hand too (`acp_early`), then imports the SDK, which serves the rest; litellm starts loading once
the first session is open and answered, so that `session/new` does not wait for its import, and
so does a warm interpreter for the editor's next agent.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Awaitable, Callable, Sequence
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

    loads = model is None or uses_litellm(model)
    return asyncio.run(_serve(options(), unread, _load if loads else None))


async def _serve(
    options: WorkbenchOptions, unread: bytes, preload: Callable[[], None] | None
) -> int:
    """Serve until the client closes stdin (0) or a signal ends it (128 + the signal): the
    editor quits, and runs are aborted and recorded, not cut. Whatever is open then is closed."""
    from workbench.logfile import start_logging
    from workbench.modes import acp_early

    start_logging()  # warnings and errors (the SDK's too) to the log file, never stdout
    reader, writer = await acp_early.protocol_streams()
    closing: list[Callable[[], Awaitable[None]]] = []
    serving = asyncio.ensure_future(_connection(options, reader, writer, unread, preload, closing))
    received: list[int] = []

    def stop(signum: int) -> None:
        received.append(signum)
        serving.cancel()

    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop, signum)
    try:
        await serving
    except asyncio.CancelledError:
        if not received:
            raise
    finally:
        for close in closing[-1:]:
            await close()
    return 128 + received[0] if received else 0


async def _connection(
    options: WorkbenchOptions,
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    unread: bytes,
    preload: Callable[[], None] | None,
    closing: list[Callable[[], Awaitable[None]]],
) -> None:
    """The connection: the first `session/new` by hand when `initialize` was (not `unread`),
    then the SDK. `closing` gets what closes what is open (the last one added is all of it)."""
    from workbench.modes import acp_early
    from workbench.processes import heavy_imports

    pending = [unread] if unread else []
    first = None
    if not unread:
        line = await acp_early.next_line(reader)
        first = await acp_early.answer_new_session(line, options, writer)
        if first is not None:
            closing.append(first.workbench.close)
        elif line:
            pending.append(line)
    with heavy_imports.quick():  # the SDK's schema: about 300 pydantic models
        from workbench.modes import acp

    agent = acp.WorkbenchAgent(options, preload, first)
    closing.append(agent.close)  # the agent has taken `first` over
    await acp.serve(agent, reader, writer, pending)


def _load() -> None:
    """litellm into this process, and a warm interpreter for the editor's next agent."""
    from workbench.agent.models.litellm_client import preload

    preload()
    forkserver.start_soon(forkserver.WARM_UP, os.environ)
