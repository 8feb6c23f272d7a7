"""Moving the current position, and the path it leaves behind.

Navigating never deletes anything: the old path stays on its branch. The next append from a
position that is not a branch head starts a new branch, and an optional branch summary (written by
the runtime's model, goal first) records at the new position what the abandoned path learned.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workbench.agent.store import Entry
from workbench.sessions.store.entries import entry_json
from workbench.sessions.workspaces.rewind import FilesRestored
from workbench.text import count_of


@dataclass
class NavigateResult:
    """Where navigation went and what it left."""

    entry: Entry
    branch: str
    """The branch the conversation continues on (a new one once a summary was recorded)."""
    detached: bool
    abandoned: list[Entry]
    summary: Entry | None
    files: FilesRestored | None = None
    """What restoring the files did (None: they were not asked to be restored)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "entry": entry_json(self.entry),
            "branch": self.branch,
            "detached": self.detached,
            "abandoned": len(self.abandoned),
            "summary": entry_json(self.summary) if self.summary else None,
            "files": self.files.to_json() if self.files else None,
        }

    def render_text(self) -> str:
        lines = [f"moved to {self.entry.id[:10]} on {self.entry.branch}"]
        if self.detached:
            lines.append("not a branch head: the next message starts a new branch from here")
        if self.summary is not None:
            lines.append(
                "recorded a summary of the "
                f"{count_of(len(self.abandoned), 'entry', 'entries')} left behind "
                f"({self.summary.id[:10]} on {self.summary.branch})"
            )
        if self.files is not None:
            lines.append(self.files.render_text())
        return "\n".join(lines)


def abandoned_path(old_path: list[Entry], new_path: list[Entry]) -> list[Entry]:
    """The entries of `old_path` after the point where it parts from `new_path`."""
    shared = 0
    for old, new in zip(old_path, new_path, strict=False):
        if old.id != new.id:
            break
        shared += 1
    return old_path[shared:]
