"""Checks on real processes: is anything of a process group still running?"""

from __future__ import annotations

import time
from pathlib import Path


def _live_processes() -> list[tuple[int, int, int]]:
    """(pid, parent pid, process group) of every process that is not a zombie (from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] != "Z":
            found.append((int(stat.parent.name), int(fields[1]), int(fields[2])))
    return found


def running_in_group(pgid: int) -> list[int]:
    """Pids in process group `pgid` that are not zombies."""
    return [pid for pid, _, group in _live_processes() if group == pgid]


def running_children(pid: int) -> list[int]:
    """Pids whose parent is `pid` that are not zombies."""
    return [child for child, parent, _ in _live_processes() if parent == pid]


def wait_group_gone(pgid: int, timeout: float = 3.0) -> list[int]:
    """Wait until nothing of the group runs; the pids still running at the deadline."""
    deadline = time.monotonic() + timeout
    while (alive := running_in_group(pgid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive
