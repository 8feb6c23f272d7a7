"""What a branch did since it forked: its conversation (entries, skills, tokens) and its files.

Skill loads come from the enforcer's records on the messages (`records_of`), tokens and cost
from the assistant messages' `usage`, the sub-agents they ran and the experiments merged in
(`workbench.agent.costs`), files from the branch's worktree against the point where it
left its parent (the merge base of the two, so a merged-and-continued branch shows only what is
new).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from workbench.agent.costs import UsageTotals, entry_totals
from workbench.agent.store import Entry, messages_of
from workbench.enforcer.state import records_of
from workbench.sessions.store.gitcmd import GitRunner
from workbench.sessions.store.store import GitConversationStore
from workbench.sessions.workspaces.files import FileChange, changed_files
from workbench.sessions.workspaces.half_made import initializing
from workbench.sessions.workspaces.workspace import Workspaces
from workbench.text import count_of


@dataclass
class BranchStatus:
    """The status of one branch (JSON keys as in the issue, plus a few additive ones)."""

    branch: str
    parent_branch: str | None
    fork_entry: str | None
    entries_since_fork: int
    skills_loaded: list[str]
    tokens: dict[str, int]
    commits_ahead: int
    dirty: bool
    files: list[FileChange]
    worktree: str | None
    base: str | None
    notes: list[str] = field(default_factory=list)
    usage: UsageTotals = field(default_factory=UsageTotals)
    """What the branch cost since its fork: tokens (with the cache's), USD, hit rate."""
    sandbox: str = ""
    """The box the session's commands run in (`SandboxPolicy.label`); the runtime fills it."""

    @property
    def cost(self) -> float | None:
        return self.usage.cost

    def to_json(self) -> dict[str, Any]:
        return {
            "branch": self.branch,
            "parent_branch": self.parent_branch,
            "fork_entry": self.fork_entry,
            "entries_since_fork": self.entries_since_fork,
            "skills_loaded": self.skills_loaded,
            "tokens": self.tokens,
            "commits_ahead": self.commits_ahead,
            "dirty": self.dirty,
            "files": [f.to_json() for f in self.files],
            "worktree": self.worktree,
            "base": self.base,
            "notes": self.notes,
            "cost": self.usage.cost,
            "usage": self.usage.to_json(),
            "sandbox": self.sandbox,
        }

    def render_text(self) -> str:
        parent = f" (from {self.parent_branch} at {(self.fork_entry or 'the start')[:10]})"
        lines = [f"branch {self.branch}{parent if self.parent_branch else ''}"]
        since = " since the fork" if self.parent_branch else ""
        lines.append(
            f"  conversation: {count_of(self.entries_since_fork, 'entry', 'entries')}{since}, "
            f"{self.tokens['input']} input / {self.tokens['output']} output tokens"
        )
        lines.append(f"  cost: {cost_line(self.usage)}")
        lines.append(f"  skills loaded: {', '.join(self.skills_loaded) or 'none'}")
        if self.sandbox:
            lines.append(f"  sandbox: {self.sandbox}")
        if self.worktree:
            state = "uncommitted changes" if self.dirty else "clean"
            lines.append(f"  worktree: {self.worktree} ({state})")
        if self.base:
            lines.append(f"  commits ahead of {self.parent_branch}: {self.commits_ahead}")
        if self.files:
            lines.append("  files:")
            for f in self.files:
                mark = " (uncommitted)" if f.uncommitted else ""
                lines.append(f"    {f.change:<8} {f.path}{mark}")
        elif self.worktree:
            lines.append("  files: no changes")
        lines.extend(f"  note: {note}" for note in self.notes)
        return "\n".join(lines)


def skills_loaded(entries: list[Entry]) -> list[str]:
    """Skills loaded on these entries, in order, each once; blocked loads did not happen."""
    names: dict[str, None] = {}
    for message in messages_of(entries):
        for record in records_of(message):
            if not record.blocked:
                names.setdefault(record.skill, None)
    return list(names)


def token_totals(usage: UsageTotals) -> dict[str, int]:
    """The `tokens` of a status: input (uncached), output, cache reads and writes."""
    return {
        "input": usage.input_tokens,
        "output": usage.output_tokens,
        "cache_read": usage.cache_read_tokens,
        "cache_write": usage.cache_write_tokens,
    }


def cost_line(usage: UsageTotals) -> str:
    """`$0.1234 · 12,000 in / 800 out / 40,000 cache read · cache hit rate 75%` (`unknown · …`
    when a reply had no price: the line is labelled cost)."""
    return f"{usage.amount_text()} · {usage.tokens_text()} · {usage.hit_rate_text()}"


def branch_status(store: GitConversationStore, workspaces: Workspaces, branch: str) -> BranchStatus:
    """The status of `branch`: its own entries and its workspace's files."""
    record = store.record(branch)
    own = store.own_entries(branch)
    usage = entry_totals(own)
    status = BranchStatus(
        branch=branch,
        parent_branch=record.parent,
        fork_entry=record.fork_entry,
        entries_since_fork=len(own),
        skills_loaded=skills_loaded(own),
        tokens=token_totals(usage),
        commits_ahead=0,
        dirty=False,
        files=[],
        worktree=None,
        base=None,
        usage=usage,
    )
    if not workspaces.available:
        status.notes.append("files are not tracked: the project is not a git repository")
        return status
    if record.worktree is not None and record.worktree.removed:
        status.notes.append("its worktree was removed after it was merged")
        return status
    owner = workspaces.owner(store.state, branch)
    git = workspaces.git(store.state, branch, create=False)
    if owner is not None and owner.name != branch:
        status.notes.append(f"works in the worktree of {owner.name}")
    if not git.directory.is_dir() or initializing(git.directory):
        state = "missing" if not git.directory.is_dir() else "half-made (its checkout stopped)"
        status.notes.append(
            f"its worktree {git.directory} is {state}; it is made again when the branch is used"
        )
        return status
    status.worktree = str(git.directory)
    status.base = fork_base(store, workspaces, branch, git)
    if status.base:
        status.commits_ahead = int(git.run("rev-list", "--count", f"{status.base}..HEAD"))
    status.files, status.dirty = changed_files(git, status.base)
    return status


def fork_base(
    store: GitConversationStore, workspaces: Workspaces, branch: str, git: GitRunner
) -> str | None:
    """The commit `branch`'s workspace (`git`) is compared with: where it left its parent's, the
    merge base of the two heads. None for the project checkout itself, or before any commit."""
    owner = workspaces.owner(store.state, branch)
    head = workspaces.head_commit(git)
    if owner is None or owner.parent is None or head is None:
        return None
    parent_git = workspaces.git(store.state, owner.parent, create=False)
    parent_head = workspaces.head_commit(parent_git) if parent_git.directory.is_dir() else None
    return git.run("merge-base", parent_head, head) if parent_head else None
