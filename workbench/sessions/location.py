"""Where a project's conversations live.

In a git project they live in the project's own repository (its common git directory, shared by
all of its worktrees) under the private ref namespace `refs/workbench/`: `git branch` stays clean
and a plain `git push` sends none of it. Elsewhere they live in a bare repository of their own at
`.pi/sessions.git`. Workbench's own files (session locks, forked worktrees) sit beside the refs in
`<git dir>/workbench/`, out of the project's working tree.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from workbench.config import PROJECT_DIR_NAME
from workbench.sessions.gitcmd import GitRunner

OWN_REPOSITORY = "sessions.git"
REF_ROOT = "refs/workbench"


@dataclass(frozen=True)
class StorageLocation:
    """The repository that holds the conversations of one project."""

    project_root: Path
    git_dir: Path
    """The repository's (common) git directory: objects and refs are written here."""
    project_is_git: bool
    """True when `git_dir` is the project's own repository, so forks can get worktrees."""

    @property
    def private_dir(self) -> Path:
        """Workbench's own files inside the git directory (locks, worktrees)."""
        return self.git_dir / "workbench"

    @property
    def lock_dir(self) -> Path:
        return self.private_dir / "locks"

    def default_worktree_root(self, session_id: str) -> Path:
        """Where forked worktrees of a session go unless the settings say otherwise."""
        return self.private_dir / "worktrees" / session_id

    def runner(self) -> GitRunner:
        """A git runner for the storage repository."""
        return GitRunner(self.git_dir)


def find_storage(project_root: Path) -> StorageLocation | None:
    """The storage of `project_root`, or None when nothing was ever stored (no git, no own repo)."""
    probe = GitRunner(project_root).try_run(
        "rev-parse", "--path-format=absolute", "--git-common-dir"
    )
    if probe.status == 0 and probe.stdout.strip():
        return StorageLocation(project_root, Path(probe.stdout.strip()), project_is_git=True)
    own = project_root / PROJECT_DIR_NAME / OWN_REPOSITORY
    if (own / "HEAD").exists():
        return StorageLocation(project_root, own, project_is_git=False)
    return None


def ensure_storage(project_root: Path) -> StorageLocation:
    """The storage of `project_root`, creating `.pi/sessions.git` outside git projects."""
    found = find_storage(project_root)
    if found is not None:
        return found
    own = project_root / PROJECT_DIR_NAME / OWN_REPOSITORY
    own.parent.mkdir(parents=True, exist_ok=True)
    GitRunner(own.parent).run("init", "--quiet", "--bare", str(own))
    return StorageLocation(project_root, own, project_is_git=False)
