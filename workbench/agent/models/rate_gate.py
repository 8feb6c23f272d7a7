"""One rate limiter shared by every process that asks one provider: a 429 holds them all back.

Runs side by side (a sweep's children) share a provider's rate limit, so one run told to slow down
means every run must: otherwise the others keep asking, each gets its own 429, and the limit is
hit again as soon as the first one retries. The gate is a folder (named by `GATE_VARIABLE`; a
sweep makes one for its runs) with a small file per provider holding the time before which no
request to it may start. A process that is rate limited moves that time later (never earlier,
under a file lock); every process waits for it before each request. Without the variable there is
no gate and each process backs off on its own. (Across machines, a sweep on Ray copies the holds
of each node's folder through one keeper: `workbench.sweeps.cluster.gate`.)
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import time
from collections.abc import Mapping
from pathlib import Path

GATE_VARIABLE = "WORKBENCH_RATE_GATE"
HOLDING_KINDS = frozenset({"rate_limit", "overloaded"})
"""Errors that say the provider as a whole wants fewer requests (not this one request's fault)."""


class RateGate:
    """The shared time before which no request may start, one file per provider in `folder`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> RateGate | None:
        folder = environ.get(GATE_VARIABLE)
        return cls(Path(folder)) if folder else None

    def _path(self, provider: str) -> Path:
        return self.folder / hashlib.sha256(provider.encode()).hexdigest()[:16]

    def until(self, provider: str) -> float:
        """The time (epoch seconds) before which `provider` must not be asked; 0 when free."""
        try:
            return float(self._path(provider).read_text(encoding="ascii") or 0)
        except (OSError, ValueError):
            return 0.0

    def held(self) -> dict[str, float]:
        """Each provider's time by its file's name: what another machine's gate copies."""
        found: dict[str, float] = {}
        for path in self.folder.glob("*") if self.folder.is_dir() else ():
            with contextlib.suppress(OSError, ValueError):
                found[path.name] = float(path.read_text(encoding="ascii") or 0)
        return found

    def hold(self, provider: str, seconds: float) -> None:
        """Hold every process back from `provider` for `seconds` from now (or longer, when
        another process already asked for longer)."""
        self.hold_until(self._path(provider).name, time.time() + seconds)

    def hold_until(self, name: str, until: float) -> None:
        """`hold` by the provider's file name (`held`), to an epoch time: never earlier."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.folder / name, "a+", encoding="ascii") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            handle.seek(0)
            held = 0.0
            with contextlib.suppress(ValueError):
                held = float(handle.read() or 0)
            handle.seek(0)
            handle.truncate()
            handle.write(f"{max(held, until):.3f}")

    async def wait(self, provider: str) -> float:
        """Sleep until `provider` may be asked; returns the seconds waited. Read again after
        each sleep: another process may have held it longer meanwhile."""
        waited = 0.0
        while (left := self.until(provider) - time.time()) > 0:
            await asyncio.sleep(left)
            waited += left
        return waited


def provider_key(model: str, api_base: str | None) -> str:
    """What shares one rate limit: the endpoint when there is one, else the provider's part of
    the model's name (`openai/gpt-4.1` -> `openai`)."""
    if api_base:
        return api_base.rstrip("/")
    return model.partition("/")[0] if "/" in model else model
