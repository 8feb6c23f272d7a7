"""Find and kill everything a process started, including commands in their own process groups.

A child workbench runs bash commands in new sessions, so signalling the child's own group does not
reach them. Before a hard kill we walk the process tree (Linux `/proc`) while it is still intact:
once the child is gone its descendants are re-parented and can no longer be traced to it.
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

PROC = Path("/proc")


def _table() -> dict[int, tuple[int, int]]:
    """pid -> (parent pid, process group) of every live process (empty without /proc)."""
    table: dict[int, tuple[int, int]] = {}
    for stat in PROC.glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # the process ended while we looked
        if fields[0] != "Z":
            table[int(stat.parent.name)] = (int(fields[1]), int(fields[2]))
    return table


def descendants(pid: int) -> list[tuple[int, int]]:
    """(pid, process group) of every live descendant of `pid`."""
    table = _table()
    children: dict[int, list[int]] = {}
    for child, (parent, _group) in table.items():
        children.setdefault(parent, []).append(child)
    found, todo = [], list(children.get(pid, []))
    while todo:
        current = todo.pop()
        found.append((current, table[current][1]))
        todo.extend(children.get(current, []))
    return found


def signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


def kill_tree(leader: int) -> None:
    """SIGKILL the group `leader` leads, every descendant, and every group a descendant leads
    (background jobs of a command stay in the command's group even after it exits)."""
    below = descendants(leader)
    pids = {pid for pid, _ in below}
    signal_group(leader, signal.SIGKILL)
    for pid, group in below:
        if group in pids:
            signal_group(group, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
