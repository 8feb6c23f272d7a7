"""The runtime's one event stream: every front end subscribes, every part emits.

A new subscriber first receives the start-up notices (the session's, the context files', what
waits for trust, extensions that failed), so a front end that subscribes late misses none. A
listener that raises is logged and the others still receive the event: a broken front end must
not stop the agent.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from workbench.agent.events import Notice
from workbench.runtime.events import WorkbenchEvent

log = logging.getLogger(__name__)
Listener = Callable[[WorkbenchEvent], None]
"""Receives each event: a `workbench.agent.events.Event`, or an extension's own event dataclass
(serialise either with `event_dict`)."""


class Listeners:
    """The subscribed front ends, and the notices each new one is told first."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self.startup_notices: list[Notice] = []

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Receive every event from now on, starting with the start-up notices (the session's,
        extensions skipped or broken); returns the function that unsubscribes."""
        for notice in self.startup_notices:
            listener(notice)
        self._listeners.append(listener)
        return lambda: self.unsubscribe(listener)

    def unsubscribe(self, listener: Listener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def emit(self, event: WorkbenchEvent) -> None:
        """Hand `event` to every listener."""
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:
                log.exception("event listener failed on %s", event.type)
