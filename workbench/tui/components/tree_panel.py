"""The conversation tree: branches, the user entries on them, where each branch forked, labels,
merges and checkpoints, and the current position.

The current position is marked ▶. Enter on a turn goes there, reply and all (the position is the
turn's last entry; on a branch: switches to it); Alt+G goes there too and has the model record a
summary of the path left behind; Alt+E edits and resends a question (the position moves to just
before it and its text goes into the editor). Alt+F forks after the turn (or at the branch's
head), Alt+L labels the entry, Alt+M merges the branch into its parent, Alt+S shows its status.
The panel draws a `Tree` snapshot from `Workbench.tree()` (`workbench.sessions.tree`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, ClassVar, Literal

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from workbench.agent.costs import UsageTotals
from workbench.text import count_of, one_line
from workbench.tui import palette
from workbench.tui.components.typing import PANEL_HINT, TypingPanel
from workbench.tui.laid_out import SteadyScrollBars

if TYPE_CHECKING:
    from workbench.sessions.tree import Tree as TreeSnapshot
    from workbench.sessions.tree import TreeBranch, TreeEntry

SHOWN_TYPES = {"user", "merge", "checkpoint", "branch_summary"}
ENTRY_MARKS = {"user": "›", "merge": "⇐", "checkpoint": "✓", "branch_summary": "≡"}
TreeAction = Literal["go", "go_summarized", "resend", "fork", "label", "merge", "status"]
ENTRY_WIDTH = 40
"""Entries are cut to this many characters, so the narrow panel needs no sideways scrolling."""


@dataclass(frozen=True)
class Target:
    """A node of the panel: a branch (with its head), or an entry on a branch (with the last
    entry of its turn: the reply, the tool calls, up to the next question)."""

    branch: str
    entry: str | None = None
    head: str | None = None
    turn_end: str | None = None
    entry_type: str = ""

    @property
    def at(self) -> str | None:
        """The entry a label acts on: the entry itself, or the branch's head."""
        return self.entry or self.head

    @property
    def after_turn(self) -> str | None:
        """Where going or forking lands: after the entry's turn, or the branch's head."""
        return self.turn_end or self.at


class TreePanel(TypingPanel, SteadyScrollBars, Tree[Target]):
    """See the module docstring. Posts `Requested` for each key."""

    DEFAULT_CSS = """
    TreePanel { border: round $primary 50%; padding: 0 1; }
    TreePanel:focus { border: round $primary; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "request('go')", "Go there", show=False),
        Binding("alt+g", "request('go_summarized')", "Go there, summarising", show=False),
        Binding("alt+e", "request('resend')", "Edit and resend", show=False),
        Binding("alt+f", "request('fork')", "Fork here", show=False),
        Binding("alt+l", "request('label')", "Label", show=False),
        Binding("alt+m", "request('merge')", "Merge", show=False),
        Binding("alt+s", "request('status')", "Status", show=False),
    ]
    KEYS_HINT = (
        f"Enter go · Alt+E edit and resend · Alt+G/F/L/M/S summarise, fork, label, merge, status"
        f" · {PANEL_HINT}"
    )

    def show_focus(self, focused: bool) -> None:
        """The title says when the panel has focus: a marker, not only the border's colour."""
        title = str(self.border_title or "").removeprefix("▶ ")
        self.border_title = f"▶ {title}" if focused else title

    class Requested(Message):
        def __init__(self, action: TreeAction, target: Target) -> None:
            super().__init__()
            self.action = action
            self.target = target

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("conversation", id=id)
        self.show_root = False
        self.auto_expand = False
        self.border_title = "Conversation · loading…"

    def show_tree(self, tree: TreeSnapshot) -> None:
        """Draw a snapshot; the cursor goes to the current position."""
        own: dict[str, list[TreeEntry]] = {}
        for entry in tree.entries:
            own.setdefault(entry.branch, []).append(entry)
        forks: dict[str | None, list[TreeBranch]] = {}
        for branch in tree.branches:
            if branch.parent_branch is not None:
                forks.setdefault(branch.fork_entry, []).append(branch)
        self.clear()
        self._here: TreeNode[Target] | None = None
        for branch in tree.branches:
            if branch.parent_branch is None:
                self._branch(self.root, branch, tree, own, forks)
        count = len(tree.branches)
        self.border_title = f"Conversation · {count_of(count, 'branch', 'branches')}"
        self.show_focus(self.has_focus)
        if self._here is not None:
            self._here.set_label(Text.assemble(("▶ ", palette.WARNING), self._here.label))
            self.call_after_refresh(self.move_cursor, self._here)

    def show_unstored(self) -> None:
        """A session kept in memory only (`--no-session`) has no tree to show."""
        self.clear()
        self.root.add_leaf(Text("kept in memory only (--no-session): no branches", palette.DIM))
        self.border_title = "Conversation · not stored"

    def _branch(
        self,
        parent: TreeNode[Target],
        branch: TreeBranch,
        tree: TreeSnapshot,
        own: dict[str, list[TreeEntry]],
        forks: dict[str | None, list[TreeBranch]],
    ) -> None:
        current = branch.name == tree.current_branch
        label = Text.assemble(("⎇ ", palette.PRIMARY), (branch.name, "bold" if current else ""))
        if branch.worktree:
            label.append("  worktree", palette.DIM)
        if branch.usage.get("calls"):
            label.append(f"  {UsageTotals.from_json(branch.usage).cost_text()}", palette.DIM)
        node = parent.add(label, data=Target(branch.name, head=branch.head), expand=True)
        if current and tree.current_entry is None:
            self._here = node
        if branch.fork_entry is None:
            for child in forks.get(None, []):
                if child.parent_branch == branch.name:
                    self._branch(node, child, tree, own, forks)
        last_shown: TreeNode[Target] | None = None
        turn: list[tuple[TreeNode[Target], Target]] = []  # the turn so far: each ends with it
        for entry in own.get(branch.name, []):
            if entry.type == "user":
                turn = []
            if entry.type in SHOWN_TYPES or entry.labels:
                target = Target(branch.name, entry.id, entry_type=entry.type)
                last_shown = node.add_leaf(self._entry_label(entry), data=target)
                turn.append((last_shown, target))
            for shown, entry_target in turn:
                shown.data = replace(entry_target, turn_end=entry.id)
            if entry.id == tree.current_entry:
                self._here = last_shown or node
            for child in forks.get(entry.id, []):
                self._branch(node, child, tree, own, forks)

    @staticmethod
    def _entry_label(entry: TreeEntry) -> Text:
        mark = ENTRY_MARKS.get(entry.type, "·")
        text = Text.assemble((f"{mark} ", palette.DIM), one_line(entry.text, ENTRY_WIDTH))
        for label in entry.labels:
            text.append(f"  [{label}]", palette.SUCCESS)
        return text

    def action_request(self, action: TreeAction) -> None:
        node = self.cursor_node
        if node is not None and node.data is not None:
            self.post_message(self.Requested(action, node.data))
