"""One rate gate across a Ray cluster: a 429 answered on one node holds back the runs of every
node, not only those that share its gate folder.

The gate of one machine is a folder (`workbench.agent.models.rate_gate`) that its runs' children
read before each request and move on a 429. On Ray, a named actor (`Keeper`, one per sweep, made
by the driver) holds each provider's hold; every task runs a `Mirror` that copies the holds of
its node's folder to the keeper and the keeper's back into the folder, every `MIRROR_S`. Holds
travel as seconds left, so the nodes' clocks need not agree. The children stay as they are: they
never talk to Ray.
"""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Any

from workbench.agent.models.rate_gate import RateGate

MIRROR_S = 0.25
"""How often a task copies the holds both ways: a hold reaches the other nodes within it."""
ASK_S = 10.0
"""How long the keeper is waited for (a cluster in trouble must not hold up the run's end)."""


class Keeper:
    """The actor: each provider's hold (by its gate file's name), in this process's clock."""

    def __init__(self) -> None:
        self.holds: dict[str, float] = {}

    def hold(self, name: str, seconds: float) -> None:
        self.holds[name] = max(self.holds.get(name, 0.0), time.time() + seconds)

    def left(self) -> dict[str, float]:
        """The seconds left of each hold still on."""
        now = time.time()
        return {name: until - now for name, until in self.holds.items() if until > now}


def start_keeper(ray: Any, name: str) -> Any:
    """The sweep's keeper, named `name` in the job (the driver makes it; its tasks find it)."""
    actor = ray.remote(num_cpus=0)(Keeper)
    return actor.options(name=name, get_if_exists=True).remote()


class Mirror:
    """A thread that copies holds between `gate` (this node's folder) and `keeper`, until
    `stop`. A hold it wrote itself is not sent back; one a child made is."""

    def __init__(self, ray: Any, gate: RateGate, keeper: Any) -> None:
        self.ray, self.gate, self.keeper = ray, gate, keeper
        self.known: dict[str, float] = {}
        """The time of each hold as last seen or written here."""
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._main, name="workbench-rate-mirror", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join()

    def _main(self) -> None:
        while not self.stopped.wait(MIRROR_S):
            with contextlib.suppress(Exception):  # the keeper gone (the sweep ended): no copy
                self.copy()

    def copy(self) -> None:
        now = time.time()
        for name, until in self.gate.held().items():
            if until > now and until > self.known.get(name, 0.0):
                self.keeper.hold.remote(name, until - now)
                self.known[name] = until
        for name, left in self.ray.get(self.keeper.left.remote(), timeout=ASK_S).items():
            until = time.time() + left
            if until > self.known.get(name, 0.0) + MIRROR_S:
                self.gate.hold_until(name, until)
                self.known[name] = until
