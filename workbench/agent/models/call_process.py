"""litellm's calls made by a process of their own, for a cold headless run (`-p`, JSON lines)
and for the app (`modes.app_start` says why there).

Such a run is bound by one core: litellm's import (about 2 s of CPU here) in a background thread
and the run's own start (its modules, the session, the system prompt: 0.3-0.5 s) take turns at
the interpreter lock while the machine's other core idles. The run forks before either begins
(`modes.headless_start`): the fork imports litellm and makes the calls (`call_server`); this
process never imports it and asks the fork for what needs it: a model's info, the parameters
litellm passes on for it, and each call's stream. What crosses is plain data, one JSON line at a
time on a socket pair of the request's own (one end handed over the fork's control socket):
litellm's keyword arguments one way, the reply's pieces (or its classified error) the other. A
call given up (an abort) closes its socket and the fork cancels it; the fork leaves when the
control socket ends, that is when this process has gone. Should the fork end first (killed, out
of memory), the call under way fails as a connection error, which is retried, and this process
makes that call and the later ones itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import socket
import threading
from collections.abc import AsyncIterator, Iterable
from itertools import takewhile
from typing import Any

from workbench.agent.models.client import (
    Delta,
    Finish,
    ModelError,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
)
from workbench.messages import Usage

READY = b"r"
"""What the fork says on the control socket once litellm is imported."""
LINE_LIMIT = 1 << 30
"""The longest line either side reads (a request carries the whole conversation)."""
READ_SIZE = 1 << 16
"""What a stream's reader takes at a time."""
_PIECES: dict[str, type[TextDelta | ThinkingDelta | ToolCallDelta]] = {
    piece.__name__: piece for piece in (TextDelta, ThinkingDelta, ToolCallDelta)
}

_control: socket.socket | None = None
_fork = 0
"""The fork's process id, to collect its exit status if it ends before this process."""
_ready = False
_lock = threading.Lock()


def use(control: socket.socket, fork: int) -> None:
    """Have this process's calls made by the fork `fork` at the other end of `control` (forked
    by `modes.headless_start` before this module is imported, so that it begins its import at
    once; `call_server.serve` runs there)."""
    global _control, _fork
    _control, _fork = control, fork


def running() -> bool:
    """Whether this process's calls go to a fork (`start`)."""
    return _control is not None


def _gone() -> ModelError:
    """The fork has ended (killed, out of memory): this process makes the calls from now on,
    the failed one again first (a connection error is retried)."""
    global _control
    if _control is not None:
        _control.close()
        _control = None
        with contextlib.suppress(ChildProcessError):
            os.waitpid(_fork, os.WNOHANG)  # no process left over, even as a name in the table
    return ModelError(
        "connection",
        "the process making the model calls has ended",
        hint="the call is made again by workbench's own process",
    )


def _gone_meanwhile() -> bool:
    """Whether the fork has ended, as `_gone` takes it (its end of the control socket closed)."""
    if _control is None:
        return True
    try:
        said = _control.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
    except BlockingIOError:
        return False
    except OSError:
        said = b""
    return not said


def _wait_until_ready() -> None:
    global _ready
    with _lock:
        if not _ready:
            assert _control is not None
            if _control.recv(1) != READY:
                raise _gone()
            _ready = True


async def ready() -> None:
    """Wait, off the event loop, until the fork has imported litellm."""
    if not _ready:
        await asyncio.to_thread(_wait_until_ready)


def _opened(request: dict[str, Any]) -> socket.socket:
    """A socket pair of the request's own, its other end handed to the fork, the request sent."""
    if _control is None:
        raise _gone()
    mine, theirs = socket.socketpair()
    with theirs:
        try:
            socket.send_fds(_control, [b"c"], [theirs.fileno()])
        except OSError:
            mine.close()
            raise _gone() from None
    mine.sendall(json.dumps(request).encode() + b"\n")
    return mine


def ask(question: str, name: str) -> Any:
    """The fork's answer to `question` about model `name` (`call_server.ANSWERS`): at once once
    it is ready, else when it is."""
    with _opened({"ask": question, "name": name}) as mine, mine.makefile("rb") as lines:
        line = lines.readline()
    if not line:
        raise _gone()
    return json.loads(line)["value"]


async def stream(model: dict[str, Any], arguments: dict[str, Any]) -> AsyncIterator[Delta]:
    """The pieces of the reply to `litellm.acompletion(**arguments)`, made by the fork for the
    model `model` (`LitellmModel.wire`); closing the iteration gives the call up."""
    reader, writer = await asyncio.open_unix_connection(
        sock=_opened({"stream": model, "arguments": arguments})
    )
    try:
        async for arrived in _arrivals(reader):
            pieces = list(takewhile(lambda said: "delta" in said, arrived))
            for delta in joined(decoded(said["delta"]) for said in pieces):
                yield delta
            if len(pieces) < len(arrived):  # the end, or the error that ended it
                if error := arrived[len(pieces)].get("error"):
                    raise ModelError(**error)
                return
        if _gone_meanwhile():
            raise _gone()
        raise ModelError("connection", "the process making the model calls ended mid-reply")
    finally:
        writer.close()


async def _arrivals(reader: asyncio.StreamReader) -> AsyncIterator[list[dict[str, Any]]]:
    """The fork's lines as they arrive, all those already here at once: a process that fell
    behind (a busy machine, a long redraw) catches up in one step, not one step a line."""
    pending = bytearray()
    while data := await reader.read(READ_SIZE):
        if b"\n" not in data:  # more of a long line (a large tool call's arguments)
            pending += data
            continue
        head, *lines, tail = data.split(b"\n")
        lines.insert(0, bytes(pending + head))
        pending = bytearray(tail)
        yield [json.loads(line) for line in lines if line]


def joined(deltas: Iterable[Delta]) -> list[Delta]:
    """`deltas` with each run of text pieces (or of thinking pieces) made one piece."""
    pieces: list[Delta] = []
    for delta in deltas:
        last = pieces[-1] if pieces else None
        if isinstance(delta, TextDelta | ThinkingDelta) and type(last) is type(delta):
            pieces[-1] = type(delta)(last.text + delta.text)
        else:
            pieces.append(delta)
    return pieces


def encoded(delta: Delta) -> dict[str, Any]:
    return {"type": type(delta).__name__, **dataclasses.asdict(delta)}


def decoded(data: dict[str, Any]) -> Delta:
    fields = {key: value for key, value in data.items() if key != "type"}
    if data["type"] == Finish.__name__:
        usage = fields.get("usage")
        return Finish(fields["reason"], Usage(**usage) if usage else None)
    return _PIECES[data["type"]](**fields)


def error_fields(error: ModelError) -> dict[str, Any]:
    """What `ModelError(**fields)` makes the same error of on this side."""
    return {
        "kind": error.kind,
        "message": error.message,
        "retry_after": error.retry_after,
        "hint": error.hint,
    }
