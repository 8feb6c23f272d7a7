"""One child `workbench` process: started warm or cold, read line by line, ended for sure.

Warm: forked by the warm interpreter (`forkserver.spawn`) with litellm already imported, leading a
process group of its own. Cold: `python -m workbench` in a new session; used for offline models
(they start fast anyway) and whenever no warm interpreter can be reached. Either way the child's
pid is its process group id, stdin is a file (the task) and stdout/stderr are pipes.

Ending a child: SIGTERM to its group (the child aborts its run and kills its running command),
SIGKILL to the group if it is still there after `GRACE_S`, then SIGKILL to every process that
carries the child's marker variable (background jobs of earlier commands:
`workbench.processes.strays`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.processes import forkserver, strays

GRACE_S = 5.0
READ_CHUNK = 1 << 16
MAX_LINE_BYTES = 32 << 20
"""A longer line is not an event: its start is passed on (as garbage), the rest dropped."""
STDERR_KEEP = 8192
DRAIN_S = 0.5
"""After the child exits, how long its pipes may stay silent before we stop reading: something
it started may still hold them open."""


@dataclass
class ChildCommand:
    """How to start a child: workbench's arguments, folder, environment (which holds `marker`,
    a variable unique to this child), the task as stdin, and whether to try a warm start."""

    argv: list[str]
    cwd: Path
    env: Mapping[str, str]
    marker: tuple[str, str]
    stdin: Path
    warm: bool


class Child:
    """A started child. Read `lines()` to the end, then `wait()`; `end()` stops it for sure
    (`killed` then says whether it took a SIGKILL)."""

    def __init__(
        self,
        pid: int,
        stdout: asyncio.StreamReader,
        stderr: asyncio.StreamReader,
        exit_code: Coroutine[Any, Any, int | None],
        marker: tuple[str, str],
        warm: bool,
    ) -> None:
        self.pid = pid
        self.marker = marker
        self.warm = warm
        self.stdout = stdout
        self.killed = False
        self._stderr = bytearray()
        self._stderr_task = asyncio.create_task(self._collect(stderr))
        self._exit: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        self._exit_task = asyncio.create_task(exit_code)
        self._exit_task.add_done_callback(self._exited_with)

    async def _collect(self, stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(READ_CHUNK):
            self._stderr += chunk
            del self._stderr[:-STDERR_KEEP]

    @property
    def stderr(self) -> str:
        return self._stderr.decode("utf-8", "replace").strip()

    @property
    def exited(self) -> bool:
        return self._exit.done()

    def _exited_with(self, waiter: asyncio.Future[int | None]) -> None:
        """Done-callback of the task that waits for the exit."""
        failed = waiter.cancelled() or waiter.exception() is not None
        if not self._exit.done():
            self._exit.set_result(None if failed else waiter.result())

    async def _read(self) -> bytes:
        """The next piece of stdout; b"" at its end, or once the child has exited and the pipe
        stays silent for `DRAIN_S`."""
        read = asyncio.ensure_future(self.stdout.read(READ_CHUNK))
        try:
            if not self.exited:
                either: set[asyncio.Future[Any]] = {read, self._exit}
                await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
            if read.done():
                return read.result()
            return await asyncio.wait_for(read, DRAIN_S)
        except TimeoutError:
            return b""
        finally:
            read.cancel()

    async def lines(self) -> AsyncIterator[bytes]:
        """stdout, one line at a time, until the child closes it or is gone."""
        buffer, scanned, dropping = bytearray(), 0, False
        while chunk := await self._read():
            buffer += chunk
            while (end := buffer.find(b"\n", scanned)) >= 0:
                if not dropping:
                    yield bytes(buffer[:end])
                dropping = False
                del buffer[: end + 1]
                scanned = 0
            scanned = len(buffer)
            if len(buffer) > MAX_LINE_BYTES:
                if not dropping:
                    yield bytes(buffer[:200])
                buffer.clear()
                scanned, dropping = 0, True
        if buffer and not dropping:
            yield bytes(buffer)

    async def wait(self) -> int | None:
        """The exit code (None when a warm child could not report one)."""
        code = await asyncio.shield(self._exit)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stderr_task, DRAIN_S)
        return code

    async def end(self, grace: float = GRACE_S) -> None:
        """SIGTERM the child's group; SIGKILL it if it is still there after `grace` seconds;
        then SIGKILL whatever it started that is still running. Returns once the child is gone."""
        if not self.exited:
            strays.signal_group(self.pid, signal.SIGTERM)
            try:
                await asyncio.wait_for(asyncio.shield(self._exit), grace)
            except TimeoutError:
                self.killed = True
                strays.signal_group(self.pid, signal.SIGKILL)
                await asyncio.shield(self._exit)
        strays.kill_marked(*self.marker)


async def _reader_for(fd: int) -> asyncio.StreamReader:
    reader = asyncio.StreamReader(limit=MAX_LINE_BYTES)
    await asyncio.get_running_loop().connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(fd, "rb", buffering=0)
    )
    return reader


async def _start_cold(command: ChildCommand) -> Child:
    env = {**command.env, "WORKBENCH_WARM_START": "0"}
    with open(command.stdin, "rb") as stdin:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-P",  # the child's folder is a project: its modules must not shadow ours
            "-m",
            "workbench",
            *command.argv,
            cwd=command.cwd,
            env=env,
            stdin=stdin,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
            limit=MAX_LINE_BYTES,
        )
    assert process.stdout is not None and process.stderr is not None
    return Child(
        process.pid, process.stdout, process.stderr, process.wait(), command.marker, warm=False
    )


def _kill_late(marker: tuple[str, str]) -> Callable[[asyncio.Future[Any]], None]:
    """A warm child that arrives after its caller was cancelled is stopped at once."""

    def kill(spawned: asyncio.Future[forkserver.WarmChild | None]) -> None:
        if not spawned.cancelled() and (late := spawned.result()) is not None:
            strays.signal_group(late.pid, signal.SIGKILL)
            strays.kill_marked(*marker)
            late.connection.close()

    return kill


async def _exit_code(warm: forkserver.WarmChild) -> int | None:
    """Read the warm child's exit line; the connection closes when the child is gone."""
    reader, writer = await asyncio.open_unix_connection(sock=warm.connection)
    try:
        data = warm.pending + await reader.read()
    finally:
        writer.close()
    for line in data.splitlines():
        with contextlib.suppress(ValueError, TypeError):
            return int(json.loads(line)["exit"])
    return None


async def _start_warm(command: ChildCommand) -> Child | None:
    out_read, out_write = os.pipe()
    err_read, err_write = os.pipe()
    with open(command.stdin, "rb") as stdin:
        spawned = asyncio.ensure_future(
            asyncio.to_thread(
                forkserver.spawn,
                forkserver.CLI_ENTRY,
                command.argv,
                forkserver.WARM_UP,
                cwd=command.cwd,
                env=command.env,
                stdio=(stdin.fileno(), out_write, err_write),
                own_group=True,
            )
        )
        try:
            warm = await asyncio.shield(spawned)
        except asyncio.CancelledError:
            spawned.add_done_callback(_kill_late(command.marker))
            os.close(out_read)
            os.close(err_read)
            raise
        finally:
            os.close(out_write)
            os.close(err_write)
    if warm is None:
        os.close(out_read)
        os.close(err_read)
        return None
    stdout, stderr = await _reader_for(out_read), await _reader_for(err_read)
    return Child(warm.pid, stdout, stderr, _exit_code(warm), command.marker, warm=True)


async def start_child(command: ChildCommand) -> Child:
    """Start the child: warm when asked and a warm interpreter can be reached, else cold."""
    if command.warm and (child := await _start_warm(command)) is not None:
        return child
    return await _start_cold(command)
