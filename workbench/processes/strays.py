"""Find and kill everything a child started, wherever it went.

A child workbench runs each bash command in a new session, and a command's background jobs outlive
the command, re-parented away from the child. Neither the child's process group nor its process
tree reaches them, but they all inherit the child's environment: each child gets a unique marker
variable, and `kill_marked` ends every process of ours that carries it (Linux `/proc`; elsewhere
only the child's own group is reached).
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

PROC = Path("/proc")


def signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


def marked(name: str, value: str) -> list[int]:
    """Pids of the live processes whose environment has `name=value` (ours only: others'
    environments cannot be read)."""
    needle = f"{name}={value}".encode()
    found = []
    for environ in PROC.glob("[0-9]*/environ"):
        try:
            entries = environ.read_bytes().split(b"\0")
        except OSError:
            continue  # another user's process, or one that ended while we looked
        if needle in entries:
            found.append(int(environ.parent.name))
    return found


def kill_marked(name: str, value: str) -> None:
    """SIGKILL every process carrying the marker `name=value`."""
    for pid in marked(name, value):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
