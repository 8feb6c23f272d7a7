"""Run a command, or the app, on a real terminal (a pseudo-terminal), as a user sees it."""

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

ESCAPES = ("\x1b]", "\x1b[", "\x9b", "\x07")
"""What a terminal would obey: OSC (clipboard, title), CSI (clear), 8-bit CSI, BEL."""


def run_in_terminal(argv: list[str], cwd: Path, timeout: float = 60) -> tuple[int, str]:
    """Run `argv` with stdout and stderr on a pseudo-terminal (stdin empty); its exit code and
    everything it wrote there."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=follower, stderr=follower
    )
    os.close(follower)
    chunks: list[bytes] = []
    try:
        while True:
            ready, _, _ = select.select([leader], [], [], timeout)
            if not ready:
                process.kill()
                raise AssertionError(f"{argv} wrote nothing for {timeout} s")
            try:
                data = os.read(leader, 65536)
            except OSError:  # the terminal is closed once the process has ended
                break
            if not data:
                break
            chunks.append(data)
        return process.wait(timeout), b"".join(chunks).decode("utf-8", "replace")
    finally:
        os.close(leader)


def start_app(cwd: Path, *args: str, size: tuple[int, int] = (140, 40)) -> tuple[int, int]:
    """`workbench ARGS` as a person starts it, in a pseudo-terminal of `size` (columns, rows):
    its process id and the terminal's file descriptor (write keys there, read the screen)."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: a terminal of a fixed size in the project
        columns, rows = size
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        os.chdir(cwd)
        argv = [sys.executable, "-m", "workbench", *args]
        os.execvpe(sys.executable, argv, {**os.environ, "TERM": "xterm-256color"})
    return pid, fd


def read_until(fd: int, mark: bytes, timeout: float) -> bytes:
    """What the app draws until `mark` shows (a failure after `timeout` seconds)."""
    seen = b""
    deadline = time.monotonic() + timeout
    while mark not in seen:
        if time.monotonic() > deadline:
            raise AssertionError(f"no {mark!r} on the terminal; it ends {seen[-300:]!r}")
        if select.select([fd], [], [], 0.05)[0]:
            seen += os.read(fd, 65536)
    return seen


def exit_status(pid: int, fd: int, timeout: float) -> int:
    """Wait for the app to end, reading what it still draws: a terminal that is not read
    fills up, and a program writing to it waits for ever."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if select.select([fd], [], [], 0.05)[0]:
            with contextlib.suppress(OSError):  # the child closed the terminal on its way out
                os.read(fd, 65536)
    raise AssertionError(f"the app did not end within {timeout} s")


def stop_app(pid: int, fd: int) -> None:
    """Kill an app that did not get as far as quitting (`pid` 0: it quit), close its terminal."""
    if pid:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    os.close(fd)
