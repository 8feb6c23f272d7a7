"""A tool call that never ran has one look everywhere: live, folded, reopened, exported, in git.

The agent marks the result it records for a call it skipped (`details["skipped"]`: queued
steering, an abort, the enforcer stopping a reply, a reply cut at its token limit); results
recorded before the mark existed are told by their words. Every front end says it the same way:
`⊘ skipped: <why>`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SKIPPED_KEY = "skipped"
MARK = "⊘"
OLD_WORDS = ("Skipped", "Not executed")
"""How the results of skipped calls began before they were marked."""


def was_skipped(details: Mapping[str, Any], text: str, is_error: bool) -> bool:
    """Whether a tool result says its call never ran."""
    return bool(details.get(SKIPPED_KEY)) or (is_error and text.startswith(OLD_WORDS))


def why_skipped(text: str) -> str:
    """The reason, without the "Skipped" its result text begins with (`due to queued user
    message.`, `the run was aborted by the user.`)."""
    for words in OLD_WORDS:
        if text.startswith(words):
            return text.removeprefix(words).lstrip(":").strip() or text
    return text


def skipped_line(text: str) -> str:
    """`⊘ skipped: <why>` for the result text of a skipped call."""
    return f"{MARK} skipped: {why_skipped(text)}"
