"""What the sandbox tests share with their fixtures (tests/integration/sandbox/conftest.py)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

SECRET = "-----BEGIN FAKE KEY----- sandbox-test-secret"
"""The content of the fake `~/.ssh/id_rsa`: a boxed command must never print it."""


def sleepers(mark: str) -> list[int]:
    """The pids of `sleep` processes whose argument starts with `mark`, in any namespace."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv[:1] == [b"sleep"] and len(argv) > 1 and argv[1].startswith(mark.encode()):
            found.append(int(entry.name))
    return found


def wait_until(done: Callable[[], bool], timeout: float = 60) -> bool:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
