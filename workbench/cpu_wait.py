"""How crowded the machine is for a thread: of the time it wanted a core, the share it waited.

Read from Linux's scheduler statistics of the calling thread (`/proc/thread-self/schedstat`:
the time it ran and the time it waited to run). Where they cannot be read, nothing is known and
the share stays 0. A thread that waits for input (a key, a socket) is idle, which counts
neither way; one that could run while every core runs something else (other programs, or the
app's own other processes) waits.
"""

from __future__ import annotations

from pathlib import Path

SCHEDSTAT = Path("/proc/thread-self/schedstat")
SHORTEST_NS = 50_000_000
"""The wanted time a share is taken over at least: over less, one turn of another process on
the core (a few milliseconds) decides it."""


class WaitShare:
    """The share of its wanted time the thread that calls `read` waited for a core, since the
    reading before (always from one thread: the statistics are the caller's)."""

    def __init__(self, source: Path = SCHEDSTAT) -> None:
        self.source = source
        self.share = 0.0
        self._last: tuple[int, int] | None = None

    def read(self) -> float:
        """The share now; a span of less than `SHORTEST_NS` wanted is added to the next."""
        try:
            ran, waited = map(int, self.source.read_text().split()[:2])
        except (OSError, ValueError):
            return self.share
        if self._last is not None:
            wanted = ran - self._last[0] + waited - self._last[1]
            if wanted < SHORTEST_NS:
                return self.share
            self.share = (waited - self._last[1]) / wanted
        self._last = (ran, waited)
        return self.share
