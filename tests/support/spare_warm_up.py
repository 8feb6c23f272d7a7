"""The warm-up of a test's own warm server (`warm_server.serve`): it has each spare child note
its pid once forked, and `prepared` (a run's entry point) answers whether the process running it
was so prepared."""

from __future__ import annotations

import os

from workbench.processes.warm_server import prepare_spares

PREPARED: list[int] = []
WARM_UP = "support.spare_warm_up:warm_up"
ENTRY = "support.spare_warm_up:prepared"


def warm_up() -> None:
    prepare_spares(lambda: PREPARED.append(os.getpid()))


def prepared(argv: list[str]) -> int:
    """Exit code 0 when this run's process was prepared before its request, else 3."""
    return 0 if [os.getpid()] == PREPARED else 3
