"""The runtime's own event: the conversation tree changed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from workbench.agent.events import Event

TreeChange = Literal[
    "fork", "navigate", "switch", "merge", "label", "commit", "new", "resume", "continue"
]
"""What changed the tree. `continue`: the first message after navigating to an entry that is not
a branch head started a new branch."""


@dataclass
class TreeUpdate(Event):
    """Re-read `tree()` (and `messages()`, when the change moved the current branch or
    position). `branch` and `entry` are the current position afterwards."""

    type: ClassVar[str] = "tree_update"
    reason: TreeChange
    branch: str
    entry: str | None
