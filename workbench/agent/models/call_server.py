"""The fork that makes the litellm calls of a cold headless run or of the app (`call_process`
says why and how): litellm imported, then each request answered on its own socket, on one event
loop."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import select
import signal
import socket
import threading
from collections.abc import Callable
from typing import Any

from workbench.agent.models import call_process, litellm_client
from workbench.agent.models.client import ModelError, ModelInfo
from workbench.agent.models.dispatch import DispatchExecutor
from workbench.agent.models.litellm_client import LitellmModel
from workbench.agent.models.litellm_import import loaded
from workbench.processes import heavy_imports

ANSWERS: dict[str, Callable[[str], Any]] = {
    "model_info": lambda name: dataclasses.asdict(litellm_client.model_info(name)),
    "long_cache_write_cost": litellm_client.long_cache_write_cost,
    "supported": lambda name: list(litellm_client.supported(name)),
}


def serve(control: socket.socket, quiet: bool = False) -> None:
    """The fork's life, until the run has gone (its end of `control` closed); `quiet`: its
    standard error goes nowhere too."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is the run's: it gives its calls up
    nowhere = os.open(os.devnull, os.O_RDWR)
    for stream in (0, 1, 2) if quiet else (0, 1):  # the run's answer is written by the run alone
        os.dup2(nowhere, stream)
    threading.Thread(target=_leave_with_the_run, args=(control,), daemon=True).start()
    first_call = contextlib.ExitStack()  # the modules it imports, quickly too
    first_call.enter_context(heavy_imports.quick())
    loaded()
    control.sendall(call_process.READY)
    asyncio.run(_served(control, first_call.close))


def _leave_with_the_run(control: socket.socket) -> None:
    """Exit at once when the run ends before its first request (a usage error, Ctrl+C): the
    import would go on for seconds for no one. A request arriving ends the watch (the event loop
    sees the run's end from then on); peeking leaves it, descriptor and all, to be read there.
    Only the end of the socket ends the fork here."""
    select.select([control], [], [])
    try:
        if control.recv(1, socket.MSG_PEEK):
            return
    except OSError:  # the event loop (non-blocking by now) took the request first
        return
    os._exit(0)


async def _served(control: socket.socket, first_call_done: Callable[[], object]) -> None:
    loop = asyncio.get_running_loop()
    loop.set_default_executor(DispatchExecutor(thread_name_prefix="asyncio"))
    control.setblocking(False)
    ended = loop.create_future()
    answering: set[asyncio.Task[None]] = set()

    def received() -> None:
        try:
            data, fds, _, _ = socket.recv_fds(control, 16, 1)
        except BlockingIOError:
            return
        except OSError:
            data, fds = b"", []
        if not data and not ended.done():
            ended.set_result(None)
        for fd in fds:
            task = loop.create_task(_answer(socket.socket(fileno=fd), first_call_done))
            answering.add(task)
            task.add_done_callback(answering.discard)

    loop.add_reader(control, received)
    await ended


def _line(data: dict[str, Any]) -> bytes:
    return json.dumps(data).encode() + b"\n"


async def _answer(connection: socket.socket, first_call_done: Callable[[], object]) -> None:
    reader, writer = await asyncio.open_unix_connection(
        sock=connection, limit=call_process.LINE_LIMIT
    )
    try:
        line = await reader.readline()
        if not line.endswith(b"\n"):
            return  # the run gave the request up before it was all sent
        request = json.loads(line)
        if "stream" in request:
            try:
                await _stream(request["stream"], request["arguments"], reader, writer)
            finally:
                first_call_done()
        else:
            writer.write(_line({"value": ANSWERS[request["ask"]](request["name"])}))
            await writer.drain()
    except OSError:
        pass  # the run closed its end meanwhile: it gave the request up
    finally:
        writer.close()


async def _stream(
    model: dict[str, Any],
    arguments: dict[str, Any],
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
) -> None:
    """Relay one call's pieces until it ends, or until the run closes its end (gives it up)."""
    client = LitellmModel(
        ModelInfo(model["name"]),
        api_base=model["api_base"],
        api_key=model["api_key"],
        key_source=model["key_source"],
    )

    async def relay() -> None:
        try:
            async for delta in client.streamed(loaded(), arguments):
                writer.write(_line({"delta": call_process.encoded(delta)}))
                await writer.drain()
            writer.write(_line({"end": True}))
        except ModelError as error:
            writer.write(_line({"error": call_process.error_fields(error)}))
        except Exception as exc:  # as the loop would see it raised in its own process
            unclassified = ModelError("other", str(exc) or type(exc).__name__)
            writer.write(_line({"error": call_process.error_fields(unclassified)}))
        await writer.drain()

    relaying = asyncio.ensure_future(relay())
    given_up = asyncio.ensure_future(reader.read())  # the run's end closed: EOF
    try:
        await asyncio.wait({relaying, given_up}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        given_up.cancel()
        if not relaying.done():
            relaying.cancel()
        with contextlib.suppress(asyncio.CancelledError, OSError):
            await relaying
