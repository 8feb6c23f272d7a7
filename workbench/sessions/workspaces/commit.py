"""Sealing a branch's file changes: one git commit in its worktree and a checkpoint entry.

Everything the branch changed is committed (`git add --all`: untracked files too, ignored files
not), with the user's own git identity and hooks, since the commit enters the user's history.
It is staged in a temporary index: the user's own staging area is touched only once the commit
exists, and then only for the committed paths (so `git status` shows them clean). A refused
commit, or a kill at any point, leaves the staging area as it was.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.agent.store import Entry
from workbench.errors import UsageError
from workbench.sessions.store.entries import entry_json
from workbench.sessions.store.gitcmd import GitRunner
from workbench.sessions.store.identity import require_user_identity
from workbench.sessions.store.store import GitConversationStore
from workbench.sessions.workspaces.commit_message import commit_prompt, entries_since_checkpoint
from workbench.sessions.workspaces.commit_trailers import branch_trailers, with_trailers
from workbench.sessions.workspaces.files import changed_files, uncommitted_paths
from workbench.sessions.workspaces.workspace import Workspaces
from workbench.text import count_of


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
            f"committed {count_of(len(self.files), 'file')} on {self.branch}: "
            f"{self.commit[:10]} {subject}\n"
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
    """Commit every change in the branch's worktree and record a checkpoint entry; the message
    gets the branch's cost and token trailers unless it has them (`commit_trailers`)."""
    workspaces.require_git("commit")
    git = workspaces.git(store.state, branch)
    pending = sorted(uncommitted_paths(git))
    if not pending:
        return CommitResult(branch, None, "", [], None)
    if not message.strip():
        raise UsageError("the commit message is empty", "pass -m MESSAGE")
    message = with_trailers(message, branch_trailers(store.own_entries(branch)))
    require_user_identity(git)
    _commit_in_temporary_index(git, message)
    git.run(
        "reset",
        "--quiet",
        "HEAD",
        "--pathspec-from-file=-",
        "--pathspec-file-nul",
        input="\0".join(pending).encode(),
    )
    commit = git.run("rev-parse", "HEAD")
    payload = {"commit": commit, "message": message, "files": pending}
    checkpoint = store.append_to_branch(branch, "checkpoint", payload)
    return CommitResult(branch, commit, message, pending, checkpoint)


def _commit_in_temporary_index(git: GitRunner, message: str) -> None:
    """`git add --all` and `git commit` (with the user's hooks) in a copy of the index."""
    index = Path(git.run("rev-parse", "--path-format=absolute", "--git-path", "index"))
    with tempfile.TemporaryDirectory(prefix="workbench-commit-") as folder:
        staging = Path(folder) / "index"
        if index.exists():
            # its file stats spare git re-reading every file; its own mtime must come too, or
            # git takes a file changed in the index's second for unchanged ("racy git")
            shutil.copy2(index, staging)
        staged = git.with_env({"GIT_INDEX_FILE": str(staging)})
        staged.run("add", "--all")
        staged.for_user_command().run("commit", "--quiet", "-F", "-", input=message.encode())
