"""Sealing a branch's file changes: one git commit in its worktree and a checkpoint entry.

Everything the branch changed is committed (`git add --all`: untracked files too, ignored files
not), with the user's own git identity and hooks, since the commit enters the user's history.
When a hook refuses the commit, the staging area is put back as it was.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workbench.agent.store import Entry
from workbench.errors import UsageError, WorkbenchError
from workbench.sessions.commit_message import commit_prompt, entries_since_checkpoint
from workbench.sessions.entries import entry_json
from workbench.sessions.files import changed_files, uncommitted_paths
from workbench.sessions.identity import require_user_identity
from workbench.sessions.store import GitConversationStore
from workbench.sessions.workspace import Workspaces


@dataclass
class CommitResult:
    """What a commit did; `commit` is None when there was nothing to commit."""

    branch: str
    commit: str | None
    message: str
    files: list[str]
    checkpoint: Entry | None

    def to_json(self) -> dict[str, Any]:
        return {
            "branch": self.branch,
            "commit": self.commit,
            "message": self.message,
            "files": self.files,
            "checkpoint": entry_json(self.checkpoint) if self.checkpoint else None,
        }

    def render_text(self) -> str:
        if self.commit is None:
            return f"nothing to commit on {self.branch}: its worktree has no changes"
        subject = self.message.splitlines()[0] if self.message else ""
        return (
            f"committed {len(self.files)} file(s) on {self.branch}: {self.commit[:10]} {subject}\n"
            f"checkpoint entry {self.checkpoint.id[:10] if self.checkpoint else '-'}"
        )


def _branch_path(store: GitConversationStore, branch: str) -> list[Entry]:
    if branch == store.branch and not store.is_detached():
        return store.path()
    tip = store.head(branch)
    return store.repo.read_path(tip) if tip else []


def draft_prompt(store: GitConversationStore, workspaces: Workspaces, branch: str) -> str | None:
    """The prompt for the model to draft the message, or None when there is nothing to commit."""
    workspaces.require_git("commit")
    git = workspaces.git(store.state, branch)
    files, dirty = changed_files(git, None)
    if not dirty:
        return None
    stat = git.try_run("diff", "HEAD", "--stat").stdout.strip()
    return commit_prompt(entries_since_checkpoint(_branch_path(store, branch)), files, stat)


def commit_branch(
    store: GitConversationStore, workspaces: Workspaces, branch: str, message: str
) -> CommitResult:
    """Commit every change in the branch's worktree and record a checkpoint entry."""
    workspaces.require_git("commit")
    git = workspaces.git(store.state, branch)
    pending = sorted(uncommitted_paths(git))
    if not pending:
        return CommitResult(branch, None, "", [], None)
    if not message.strip():
        raise UsageError("the commit message is empty", "pass -m MESSAGE")
    require_user_identity(git)
    staged = git.run("write-tree")  # the user's staging, put back if the commit is refused
    git.run("add", "--all")
    try:
        git.run("commit", "--quiet", "-F", "-", input=message.encode())
    except WorkbenchError:
        git.run("read-tree", staged)  # a hook said no: nothing was committed, nothing staged
        raise
    commit = git.run("rev-parse", "HEAD")
    payload = {"commit": commit, "message": message, "files": pending}
    checkpoint = store.append_to_branch(branch, "checkpoint", payload)
    return CommitResult(branch, commit, message, pending, checkpoint)
