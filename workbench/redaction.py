"""Keeping keys out of what we record: command lines in lock files, errors and notices."""

from __future__ import annotations

from collections.abc import Sequence

SECRET_FLAGS = ("--api-key",)
"""Flags whose value is a secret."""
HIDDEN = "***"


def redacted_argv(argv: Sequence[str]) -> list[str]:
    """`argv` with the value of every secret flag replaced (`--api-key X`, `--api-key=X`)."""
    shown: list[str] = []
    hide_next = False
    for arg in argv:
        if hide_next:
            shown.append(HIDDEN)
            hide_next = False
        elif arg in SECRET_FLAGS:
            shown.append(arg)
            hide_next = True
        elif arg.startswith(tuple(f"{flag}=" for flag in SECRET_FLAGS)):
            shown.append(f"{arg.partition('=')[0]}={HIDDEN}")
        else:
            shown.append(arg)
    return shown
