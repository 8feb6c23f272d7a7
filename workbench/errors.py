"""The one error type every layer raises for expected failures.

Front ends show `message` and, when present, `hint` (what the user can do next); they never show a
traceback for a WorkbenchError. Unexpected exceptions are logged with their traceback instead.
"""

from __future__ import annotations


class WorkbenchError(Exception):
    """An expected failure: something the user can understand and act on."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message}\n  hint: {self.hint}"


class UsageError(WorkbenchError):
    """The command itself cannot run (a path that does not exist, bad arguments): exit code 2."""


class DiskFull(WorkbenchError):
    """A write failed for lack of space (ENOSPC): what was received is kept, not lost."""

    PREFIX = "disk full"

    def __init__(self, where: str) -> None:
        super().__init__(
            f"{self.PREFIX}: could not write to {where}",
            f"free some space there (df -h {where}); nothing received is lost: it is written "
            "with the next entry, or shown here",
        )
