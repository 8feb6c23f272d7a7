"""Garbage collection kept out of the way of keystrokes.

CPython's full collections walk every object the collector tracks: with litellm, pydantic and
Textual loaded that is over half a million, and one full collection held the interpreter for
200-650 ms, the longest pause a person typing while a reply streams would feel. So:

- `settle_after()`, once start-up is over (the session open, litellm's import finished): what exists
  then (modules, classes, the open session) lives as long as the process, and is moved out of
  the collector's sight (`gc.freeze`). Once per process.
- `hold()` while the agent runs: full collections wait (young ones go on and free most garbage,
  which dies young); `release()` gives the collector its thresholds back, and the app calls it
  a moment after the run ends, so the next full collection comes when the reply is on screen.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable

NEVER = 1 << 30
"""A full-collection threshold that is never reached."""


class Collector:
    """The app's hold on the garbage collector (see the module docstring)."""

    settled = False
    """Whether start-up's objects are frozen in this process (once is enough)."""

    def __init__(self) -> None:
        self._thresholds: tuple[int, int, int] | None = None

    @classmethod
    def settle_after(cls, wait: Callable[[], None]) -> None:
        """Settle once `wait()` returns (in a thread of its own, which a quit does not wait for)."""
        if not cls.settled:
            cls.settled = True
            thread = threading.Thread(target=cls._settle, args=(wait,), name="gc-settle")
            thread.daemon = True
            thread.start()

    @staticmethod
    def _settle(wait: Callable[[], None]) -> None:
        wait()
        gc.freeze()

    def hold(self) -> None:
        if self._thresholds is None:
            self._thresholds = gc.get_threshold()
            gc.set_threshold(self._thresholds[0], self._thresholds[1], NEVER)

    def release(self) -> None:
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None
