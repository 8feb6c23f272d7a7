"""Run a command with its output on a real terminal (a pseudo-terminal), as a user sees it."""

from __future__ import annotations

import os
import pty
import select
import subprocess
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
