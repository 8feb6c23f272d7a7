"""`bash(command, timeout?)`: run a command, stdout and stderr merged, exit code in the result.

The command runs in its own process group so that a timeout or an abort can kill everything it
started, and in the session's sandbox (`workbench.sandbox`) unless it is off: a denial by the box
is named in the result so that the model can adapt. `execute_outside_box` is the one way to run a
command unboxed, given the user's explicit `Grant`. Long output keeps its tail (where errors
usually are); the full output then goes to a temp file named in the result, so nothing is lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import tempfile
import time
from pathlib import Path
from typing import IO, Any

from workbench.errors import WorkbenchError
from workbench.output_limits import MAX_BYTES, MAX_LINES, format_size, tail
from workbench.permission import ALLOW, NO, ONCE_OR_NO, YES, PermissionRequest, always
from workbench.sandbox import Boxed, Grant, boxed
from workbench.text import count_of
from workbench.tool import Tool, ToolContext, ToolResult

READ_CHUNK = 65536
UPDATE_INTERVAL_S = 0.1
EXIT_GRACE_S = 0.2
"""After the shell exits, how long to keep reading output that its background jobs still write."""

DESCRIPTION = (
    "Run a bash command in the working folder; stdout and stderr are merged and the exit code is "
    f"reported. Output longer than {MAX_LINES} lines or {MAX_BYTES // 1024} KB keeps its end and "
    "the full output is saved to a file named in the result. Optional timeout in seconds."
)

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "description": "The bash command to run"},
        "timeout": {"type": "number", "description": "Seconds before the command is killed"},
    },
    "required": ["command"],
}


class OutputBuffer:
    """Collects output; past the byte limit it spills everything to a temp file and keeps only a
    tail in memory, so a command that prints gigabytes costs disk, not memory."""

    def __init__(self) -> None:
        self.total = 0
        self._recent = bytearray()
        self._spill: IO[bytes] | None = None

    @property
    def spilled(self) -> bool:
        return self._spill is not None

    def _start_spill(self) -> IO[bytes]:
        """The temp file, holding all output so far (`_recent` is complete until it exists)."""
        spill = tempfile.NamedTemporaryFile(  # noqa: SIM115 - kept open while running
            prefix="workbench-bash-", suffix=".log", delete=False
        )
        spill.write(self._recent)
        self._spill = spill
        return spill

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        if self._spill is None and self.total > MAX_BYTES:
            self._start_spill()
        if self._spill is not None:
            self._spill.write(chunk)
        self._recent += chunk
        if len(self._recent) > 2 * MAX_BYTES:
            del self._recent[: len(self._recent) - MAX_BYTES - 4]

    def text(self) -> str:
        return self._recent.decode("utf-8", "replace")

    def save(self) -> Path:
        """A file with the full output, for a result cut by the line limit alone too."""
        spill = self._spill or self._start_spill()
        spill.close()
        return Path(spill.name)

    def close(self) -> None:
        if self._spill is not None:
            self._spill.close()

    def discard(self) -> None:
        """Close and delete the temp file: an aborted command's output goes nowhere."""
        self.close()
        if self._spill is not None:
            Path(self._spill.name).unlink(missing_ok=True)


def kill_group(process: asyncio.subprocess.Process) -> None:
    """Kill the command's whole process group (its pid is the group id: own session)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


async def _pump(
    process: asyncio.subprocess.Process,
    reader: asyncio.StreamReader,
    out: OutputBuffer,
    ctx: ToolContext,
) -> None:
    """Read output until EOF, or until a short grace after the shell exited (its background jobs
    may keep the pipe open for as long as they run)."""
    shown_at, unshown = 0.0, False

    def show() -> None:
        nonlocal shown_at, unshown
        shown_at, unshown = time.monotonic(), False
        ctx.update(tail(out.text().rstrip("\n"))[0])

    exit_wait = asyncio.ensure_future(process.wait())
    read: asyncio.Future[bytes] | None = None
    try:
        while True:
            read = asyncio.ensure_future(reader.read(READ_CHUNK))
            # Output that came within the interval is shown when it ends, not with the next
            # chunk: a command that goes quiet after a burst shows its last lines.
            due = max(shown_at + UPDATE_INTERVAL_S - time.monotonic(), 0) if unshown else None
            await asyncio.wait({read, exit_wait}, timeout=due, return_when=asyncio.FIRST_COMPLETED)
            if unshown and not read.done() and not exit_wait.done():
                show()
                await asyncio.wait({read, exit_wait}, return_when=asyncio.FIRST_COMPLETED)
            if not read.done():
                break
            chunk = read.result()
            if not chunk:
                return
            out.add(chunk)
            unshown = True
            if time.monotonic() - shown_at >= UPDATE_INTERVAL_S:
                show()
        deadline = time.monotonic() + EXIT_GRACE_S
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                chunk = await asyncio.wait_for(asyncio.shield(read), remaining)
            except TimeoutError:
                return
            if not chunk:
                return
            out.add(chunk)
            read = asyncio.ensure_future(reader.read(READ_CHUNK))
    finally:
        exit_wait.cancel()
        if read is not None:
            read.cancel()


async def _output_pipe() -> tuple[int, asyncio.StreamReader, asyncio.BaseTransport]:
    """A pipe whose write end the command gets as stdout and stderr. Our own pipe (not asyncio's
    PIPE) so that the shell's exit is seen even while a background job holds the write end."""
    read_fd, write_fd = os.pipe()
    reader = asyncio.StreamReader()
    transport, _ = await asyncio.get_running_loop().connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb", buffering=0)
    )
    return write_fd, reader, transport


def _timeout(args: dict[str, Any]) -> float | None:
    value = args.get("timeout")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise WorkbenchError(f"timeout must be a positive number of seconds, not {value!r}")
    return float(value)


def _report(
    out: OutputBuffer, exit_code: int | None, timeout: float | None, box: Boxed
) -> ToolResult:
    shown, truncated = tail(out.text().rstrip("\n"))
    truncated = truncated or out.spilled
    full_output = out.save() if truncated else None
    text = shown if shown.strip() else "(no output)"
    if truncated:
        text += (
            f"\n\n[Output truncated: showing the last "
            f"{count_of(shown.count(chr(10)) + 1, 'line')} of "
            f"{format_size(out.total)}. Full output: {full_output}]"
        )
    if exit_code is None:
        text += f"\n\nCommand timed out after {timeout:g} s; its process group was killed."
    elif exit_code < 0:
        text += f"\n\nCommand was killed by signal {-exit_code}."
    else:
        text += f"\n\nExit code: {exit_code}"
    denied = box.denials(out.text()) if exit_code != 0 else []
    if denied:
        text += f"\n\n[Sandbox ({box.policy.mode}) denied: " + "; ".join(denied)
        text += ". Work inside the project, or ask the user to allow it (docs/sandbox.md).]"
    details = {
        "exit_code": exit_code,
        "timed_out": exit_code is None,
        "truncated": truncated,
        "full_output_path": str(full_output) if full_output else None,
        "sandbox": box.policy.mode,
        "sandbox_denied": denied,
    }
    return ToolResult(text, is_error=exit_code != 0, details=details)


async def execute(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """Run the command in the session's box (see the module); when the box denied it and a
    user can answer, ask whether to run it once outside, and record the answer in the result."""
    boxed_result = await _run(args, ctx, None)
    denied = boxed_result.details.get("sandbox_denied") if boxed_result.details else None
    if not denied or ctx.ask is None:
        return boxed_result
    command = str(args.get("command", ""))
    reason = "; ".join(denied)
    request = PermissionRequest(
        "outside_sandbox",
        "bash",
        f"The sandbox denied this command ({reason}). Run it once outside the box?",
        command,
        ONCE_OR_NO,
        ctx.tool_call_id,
    )
    if await ctx.ask(request) != ALLOW:
        boxed_result.details["outside_sandbox"] = "refused"
        return boxed_result
    result = await execute_outside_box(args, ctx, Grant(command, reason))
    result.text = f"[The user let this command run once outside the sandbox.]\n\n{result.text}"
    result.details["outside_sandbox"] = "granted"
    result.details["sandbox_denied"] = denied
    return result


async def execute_outside_box(args: dict[str, Any], ctx: ToolContext, grant: Grant) -> ToolResult:
    """Run the command once outside the box: only for the user's explicit `grant` (the
    permission prompt's answer), which must name this very command."""
    if grant.command != str(args.get("command", "")):
        raise WorkbenchError("the grant to run outside the sandbox is for another command")
    return await _run(args, ctx, grant)


async def _run(args: dict[str, Any], ctx: ToolContext, grant: Grant | None) -> ToolResult:
    command = str(args.get("command", ""))
    if not command.strip():
        raise WorkbenchError("command is empty")
    timeout = _timeout(args)
    async with boxed(ctx.sandbox, ctx.cwd, ["bash", "-c", command], grant=grant) as box:
        return await _run_boxed(box, ctx, timeout)


async def _run_boxed(box: Boxed, ctx: ToolContext, timeout: float | None) -> ToolResult:
    write_fd, reader, pipe = await _output_pipe()
    try:
        process = await asyncio.create_subprocess_exec(
            *box.argv,
            cwd=ctx.cwd,
            env=box.env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=write_fd,
            stderr=write_fd,
            start_new_session=True,
        )
    except OSError as exc:
        pipe.close()
        raise WorkbenchError(f"cannot start {box.argv[0]}: {exc.strerror}") from exc
    finally:
        os.close(write_fd)
    out = OutputBuffer()
    exit_code: int | None
    try:
        async with asyncio.timeout(timeout):
            await _pump(process, reader, out, ctx)
            exit_code = await process.wait()
    except TimeoutError:
        kill_group(process)
        await process.wait()
        exit_code = None
    except asyncio.CancelledError:
        kill_group(process)
        await asyncio.shield(process.wait())
        out.discard()
        raise
    finally:
        pipe.close()
        out.close()
    return _report(out, exit_code, timeout, box)


def describe(args: dict[str, Any], ctx: ToolContext) -> PermissionRequest:
    """The command, for the user's approval (`approval: all`)."""
    command = str(args.get("command", ""))
    options = (YES, NO, always("commands"))
    title = "Run this command"
    return PermissionRequest("command", "bash", title, command, options, ctx.tool_call_id)


def bash_tool() -> Tool:
    return Tool("bash", DESCRIPTION, PARAMETERS, execute, describe)
