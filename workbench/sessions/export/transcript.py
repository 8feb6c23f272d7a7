"""A branch of a session as one document: what `workbench export` renders (HTML or Markdown).

Gathered once, read-only: the branch's entries from the root, tool calls paired with their
results, skill loads and violations, the branch's place in the tree, token and cost figures and
the diff of its experiment's files. The renderers (`export_html.py`, `export_md.py`) only format
it; this module decides what it says, after the credential check (`credentials.py`).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from workbench.agent.compaction_plan import file_lists_as_markdown
from workbench.agent.costs import USAGE_UNKNOWN
from workbench.agent.store import Entry
from workbench.enforcer.state import LoadRecord, records_of
from workbench.errors import WorkbenchError
from workbench.sessions.export.credentials import check_export
from workbench.sessions.export.sweep_tables import SweepTable, newest_records, sweep_table
from workbench.sessions.store.store import GitConversationStore
from workbench.sessions.workspaces.diff import branch_diff
from workbench.sessions.workspaces.workspace import Workspaces
from workbench.skipped import skipped_line, was_skipped


@dataclass
class ToolCallView:
    """One tool call and what came back."""

    name: str
    arguments: str
    """The arguments as indented JSON."""
    key: str
    """The argument that says most (a path, a command), for the one-line summary."""
    result: str | None = None
    is_error: bool = False
    loads: list[LoadRecord] = field(default_factory=list)
    skipped: bool = False
    """The call never ran (`workbench.skipped`)."""

    @property
    def status(self) -> str:
        """`done`, `error`, `⊘ skipped: <why>` or `no result`."""
        if self.result is None:
            return "no result"
        if self.skipped:
            return skipped_line(self.result)
        return "error" if self.is_error else "done"


@dataclass
class Item:
    """One thing in the conversation: a message (with its tool calls) or a tree record."""

    kind: str
    """user, assistant, notice, compaction, branch_summary, checkpoint, merge, label, sweep,
    tool_result (a result whose call is not on the branch)."""
    entry: Entry
    text: str = ""
    thinking: str = ""
    calls: list[ToolCallView] = field(default_factory=list)
    loads: list[LoadRecord] = field(default_factory=list)
    is_error: bool = False
    ending: str = ""
    """How a reply that did not end as it should ended: `(aborted)`, `(failed: why)`."""
    table: SweepTable | None = None
    """A sweep's runs and variants (kind `sweep`)."""


@dataclass
class PlaceInTree:
    """Where the branch is: its ancestry from the root branch, and every branch of the tree."""

    ancestry: list[tuple[str, str | None]]
    """(branch, the entry it forked at) from the root branch down to this one."""
    outline: list[tuple[int, str, int]]
    """(depth, branch, entries of its own) of every branch, depth-first."""


@dataclass
class Figures:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cost: float | None = None
    cost_known: bool = True
    replies: int = 0


@dataclass
class Transcript:
    session_id: str
    name: str
    branch: str
    items: list[Item]
    place: PlaceInTree
    figures: Figures
    diff: str
    diff_note: str
    entries: int
    untracked: list[str] = field(default_factory=list)
    """The untracked files the diff shows (an export says which it includes)."""
    redacted: int = 0
    """Credentials replaced (an export with --redact)."""
    made: float = field(default_factory=time.time)

    @property
    def title(self) -> str:
        return self.name or f"session {self.session_id}"

    @property
    def skill_loads(self) -> list[LoadRecord]:
        return [load for item in self.items for load in item.loads] + [
            load for item in self.items for call in item.calls for load in call.loads
        ]


KEY_ARGUMENTS = ("path", "file_path", "command", "pattern", "skill", "name", "query")


def build_transcript(
    store: GitConversationStore,
    workspaces: Workspaces,
    branch: str | None = None,
    redact: bool = False,
) -> Transcript:
    """The transcript of `branch` (default: the current one); `SecretsFound` when it holds a
    credential, unless `redact` (then each is replaced)."""
    name = store.record(branch).name if branch else store.branch
    entries = store.branch_path(name)
    diff, note, untracked = _diff(store, workspaces, name)
    entries, title, diff, redacted = check_export(entries, store.state.name, diff, name, redact)
    return Transcript(
        store.session_id,
        title,
        name,
        _items(entries),
        _place(store, name),
        _figures(entries),
        diff,
        note,
        len(entries),
        untracked,
        redacted,
    )


def _items(entries: list[Entry]) -> list[Item]:
    items: list[Item] = []
    calls: dict[str, ToolCallView] = {}
    sweeps = newest_records(entries)
    for entry in entries:
        message = entry.message()
        if entry.type == "sweep":
            if entry.id in sweeps:  # an older record of the same sweep is not shown
                table = sweep_table(entry.payload)
                items.append(Item("sweep", entry, text=table.title, table=table))
            continue
        if message is None:
            items.append(Item(entry.type, entry, text=_record_text(entry)))
            continue
        if message.role == "tool_result" and message.tool_call_id in calls:
            view = calls.pop(message.tool_call_id or "")
            view.result, view.is_error = message.text, message.is_error
            view.skipped = was_skipped(message.details, message.text, message.is_error)
            view.loads = records_of(message)
            continue
        text = message.text
        if entry.type in ("compaction", "branch_summary"):
            text = file_lists_as_markdown(text)
        item = Item(entry.type, entry, text, message.thinking, is_error=message.is_error)
        item.ending = message.ending() if message.role == "assistant" else ""
        item.loads = records_of(message)
        for call in message.tool_calls:
            view = ToolCallView(call.name, _json(call.arguments), _key(call.arguments))
            calls[call.id] = view
            item.calls.append(view)
        items.append(item)
    return items


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def _key(arguments: dict[str, Any]) -> str:
    for key in KEY_ARGUMENTS:
        if isinstance(arguments.get(key), str):
            return str(arguments[key]).splitlines()[0][:120] if arguments[key] else ""
    return ""


def _record_text(entry: Entry) -> str:
    payload = entry.payload
    if entry.type == "checkpoint":
        files = ", ".join(payload.get("files") or [])
        return f"committed {str(payload.get('commit', ''))[:10]}: {payload.get('message', '')}" + (
            f"\nfiles: {files}" if files else ""
        )
    if entry.type == "merge":
        summary = file_lists_as_markdown(str(payload.get("summary") or ""))
        head = f"merged {payload.get('branch')} into {payload.get('into')}"
        return f"{head}\n\n{summary}" if summary else head
    if entry.type == "label":
        return f"label {payload.get('label')} on {str(payload.get('target', ''))[:10]}"
    return str(payload.get("text") or _json(payload))


def _place(store: GitConversationStore, branch: str) -> PlaceInTree:
    branches = store.state.branches
    ancestry: list[tuple[str, str | None]] = []
    name: str | None = branch
    while name is not None and name in branches and len(ancestry) <= len(branches):
        ancestry.insert(0, (name, branches[name].fork_entry))
        name = branches[name].parent
    children: dict[str | None, list[str]] = {}
    for record in sorted(branches.values(), key=lambda r: r.created):
        parent = record.parent if record.parent in branches else None
        children.setdefault(parent, []).append(record.name)
    outline: list[tuple[int, str, int]] = []

    def walk(parent: str | None, depth: int) -> None:
        for child in children.get(parent, []):
            if any(child == seen for _, seen, _ in outline):
                continue
            outline.append((depth, child, len(store.own_entries(child))))
            walk(child, depth + 1)

    walk(None, 0)
    return PlaceInTree(ancestry, outline)


def _figures(entries: list[Entry]) -> Figures:
    figures = Figures()
    for entry in entries:
        message = entry.message() if entry.type == "assistant" else None
        if message is None:
            continue
        figures.replies += 1
        usage = message.usage
        if usage is None:
            figures.cost_known = figures.cost_known and not message.details.get(USAGE_UNKNOWN)
            continue
        figures.input_tokens += usage.input_tokens
        figures.output_tokens += usage.output_tokens
        figures.cache_read_tokens += usage.cache_read_tokens
        if usage.cost is None:
            figures.cost_known = figures.cost_known and not (
                usage.input_tokens or usage.output_tokens
            )
        else:
            figures.cost = (figures.cost or 0.0) + usage.cost
    return figures


def _diff(
    store: GitConversationStore, workspaces: Workspaces, branch: str
) -> tuple[str, str, list[str]]:
    """The diff of the branch's experiment files, a note when there is none to show, and the
    untracked files it shows."""
    if not workspaces.available:
        return "", "the project is not a git repository: no files to compare", []
    record = store.record(branch)
    worktree = record.worktree
    try:
        found = branch_diff(store, workspaces, branch)
        return found.text, "", found.untracked
    except WorkbenchError as exc:
        if worktree is None or not worktree.base:
            return "", exc.message, []
    # A worktree not made here yet (a pulled experiment) or removed: its committed files.
    git = workspaces.location.project_runner()
    ref = f"refs/heads/{worktree.project_branch}"
    if git.try_run("rev-parse", "--verify", "--quiet", ref).status != 0:
        return "", f"the files of {branch} are not here (their project branch is gone)", []
    diff = git.run("diff", "--no-color", "--no-ext-diff", worktree.base, ref, strip=False)
    return diff, "", []
