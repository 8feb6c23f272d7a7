"""The app's first frame pays only for Textual: the heavy parts load after it."""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

LATER = (
    "litellm",
    "git",
    "networkx",
    "workbench.runtime.workbench",  # the package is light: the app reads its command registry
    "workbench.agent.loop",
    "textual.widgets._markdown",
)


def test_the_app_module_leaves_the_heavy_parts_for_after_the_first_frame() -> None:
    code = (
        f"import sys, workbench.tui.app\nprint(','.join(m for m in {LATER!r} if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def _read_until(fd: int, mark: bytes, timeout: float) -> bytes:
    seen = b""
    deadline = time.monotonic() + timeout
    while mark not in seen:
        if time.monotonic() > deadline:
            raise AssertionError(f"no {mark!r} on the terminal; it ends {seen[-300:]!r}")
        if select.select([fd], [], [], 0.05)[0]:
            seen += os.read(fd, 65536)
    return seen


def _exit_status(pid: int, fd: int, timeout: float) -> int:
    """Wait for the child to end, reading what it still draws: a terminal that is not read
    fills up, and a program writing to it waits for ever."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if select.select([fd], [], [], 0.05)[0]:
            with contextlib.suppress(OSError):  # the child closed the terminal on its way out
                os.read(fd, 65536)
    raise AssertionError(f"workbench did not end within {timeout} s of Ctrl+C twice")


def test_workbench_with_no_arguments_in_a_terminal_opens_the_app(project: Path) -> None:
    """The real entry point in a pseudo-terminal: the app draws, opens the session, and quits
    on Ctrl+C twice with exit code 0."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: a terminal of a fixed size in the project
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 140, 0, 0))
        os.chdir(project)
        os.execvpe(
            sys.executable,
            [sys.executable, "-m", "workbench"],
            {**os.environ, "TERM": "xterm-256color"},
        )
    try:
        _read_until(
            fd, b"essage the agent", 30
        )  # the editor's placeholder (the cursor splits the M)
        _read_until(fd, "⎇ main".encode(), 30)  # the session is open: its branch in the footer
        os.write(fd, b"\x03")
        time.sleep(0.2)
        os.write(fd, b"\x03")
        status = _exit_status(pid, fd, 30)
        pid = 0
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        if pid:  # it did not get as far as quitting: do not leave it running
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)
