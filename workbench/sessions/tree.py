"""The whole conversation tree of a session: every branch and entry, labels, the position, and
what each branch cost (its own entries and the experiments merged into it) and the session as a
whole (every entry once: merged experiments are not counted again through their merge entry)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from workbench.agent.costs import UsageTotals, entry_totals
from workbench.agent.store import Entry
from workbench.sessions.store.entries import entry_json
from workbench.sessions.store.store import GitConversationStore

SHORT = 10


@dataclass
class TreeEntry:
    id: str
    parent: str | None
    type: str
    branch: str
    text: str
    labels: list[str] = field(default_factory=list)


@dataclass
class TreeBranch:
    name: str
    head: str | None
    fork_entry: str | None
    parent_branch: str | None
    worktree: str | None
    usage: dict[str, Any] = field(default_factory=dict)
    """What the branch cost since its fork (`UsageTotals.to_json`)."""


@dataclass
class Tree:
    """A snapshot of the tree, for `tree --format json` and the text view."""

    session: str
    name: str
    current_branch: str
    current_entry: str | None
    branches: list[TreeBranch]
    entries: list[TreeEntry]
    usage: dict[str, Any] = field(default_factory=dict)
    """What the whole session cost, every branch's entries counted once."""

    def to_json(self) -> dict[str, Any]:
        return {
            "session": self.session,
            "name": self.name,
            "current": {"branch": self.current_branch, "entry": self.current_entry},
            "usage": self.usage,
            "branches": [vars(b) for b in self.branches],
            "entries": [vars(e) for e in self.entries],
        }

    def render_text(self) -> str:
        """An indented outline: each branch's entries, forks nested under their fork entry."""
        own: dict[str, list[TreeEntry]] = {b.name: [] for b in self.branches}
        for entry in self.entries:
            own.setdefault(entry.branch, []).append(entry)
        forks: dict[str | None, list[TreeBranch]] = {}
        for branch in self.branches:
            if branch.parent_branch is not None:
                forks.setdefault(branch.fork_entry, []).append(branch)
        title = f" {self.name!r}" if self.name else ""
        lines = [f"session {self.session}{title}  [{_cost(self.usage)} in all]"]

        def show_branch(branch: TreeBranch, indent: str) -> None:
            where = f" from {branch.parent_branch}" if branch.parent_branch else ""
            worktree = f"  [worktree {branch.worktree}]" if branch.worktree else ""
            current = "  <- current" if branch.name == self.current_branch else ""
            cost = f"  [{_cost(branch.usage)}]"
            lines.append(f"{indent}* {branch.name}{where}{cost}{worktree}{current}")
            if branch.fork_entry is None:
                for child in forks.get(None, []):
                    if child.parent_branch == branch.name:
                        show_branch(child, indent + "  | ")
            for entry in own.get(branch.name, []):
                labels = "".join(f"  [{label}]" for label in entry.labels)
                here = "  <- you are here" if entry.id == self.current_entry else ""
                text = f"{entry.id[:SHORT]} {entry.type}: {entry.text}"
                lines.append(f"{indent}  {text}{labels}{here}")
                for child in forks.get(entry.id, []):
                    show_branch(child, indent + "  | ")

        for branch in self.branches:
            if branch.parent_branch is None:
                show_branch(branch, "")
        return "\n".join(lines)


def _cost(usage: dict[str, Any]) -> str:
    return UsageTotals.from_json(usage).cost_text()


def _costs(raw: list[Entry]) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """Each branch's totals (its own entries, merges included) and the session's (what merged
    experiments cost left out: their entries are counted where they were written)."""
    own: dict[str, list[Entry]] = {}
    for entry in raw:
        own.setdefault(entry.branch, []).append(entry)
    session = entry_totals(raw, merged=False)
    return {name: entry_totals(entries).to_json() for name, entries in own.items()}, (
        session.to_json()
    )


def build_tree(store: GitConversationStore) -> Tree:
    """Read every entry of the session (one `git log`) into a tree."""
    raw = store.all_entries()
    costs, session_usage = _costs(raw)
    entries = [TreeEntry(**entry_json(e)) for e in raw]
    by_id = {e.id: e for e in entries}
    for entry in raw:
        target = by_id.get(str(entry.payload.get("target"))) if entry.type == "label" else None
        if target is not None:
            target.labels.append(str(entry.payload.get("label")))
    branches = [
        TreeBranch(
            r.name,
            store.head(r.name),
            r.fork_entry,
            r.parent,
            r.worktree.path if r.worktree and not r.worktree.removed else None,
            costs.get(r.name, UsageTotals().to_json()),
        )
        for r in sorted(store.state.branches.values(), key=lambda r: r.created)
    ]
    return Tree(
        store.session_id,
        store.state.name,
        store.branch,
        store.position_entry(),
        branches,
        entries,
        session_usage,
    )
