"""The unified diff of what a branch changed in its files, for reading (status lists the files).

The diff compares the branch's worktree as it is now (committed and uncommitted work alike) with
the commit `status` compares it with (`fork_base`: where the branch left its parent), so the two
always agree. Untracked files show as added (and are named: an export says which it shows),
ignored ones and earlier exports not at all: git's own `diff` runs with a scratch copy of the
index in which the untracked files are marked "intent to add". The real index, the files and
the refs are never written, so no lock is needed.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from workbench.errors import UsageError, WorkbenchError
from workbench.sessions.store.gitcmd import GitRunner
from workbench.sessions.store.store import GitConversationStore
from workbench.sessions.workspaces.export_mark import is_export
from workbench.sessions.workspaces.status import fork_base
from workbench.sessions.workspaces.workspace import Workspaces

READABLE_PATHS = ("core.quotePath", "false")
"""Paths as they are (`é`, not `\\303\\251`), whatever the user's configuration."""


@dataclass(frozen=True)
class WorktreeDiff:
    text: str
    untracked: list[str]
    """The untracked files the diff shows as added."""


def pathspec(path: str | None) -> list[str]:
    """Paths as `status` lists them: from the repository's top, taken literally (no globs)."""
    return [f":(top,literal){path}"] if path else [":(top)"]


def branch_diff(
    store: GitConversationStore, workspaces: Workspaces, branch: str, path: str | None = None
) -> WorktreeDiff:
    """The diff of `branch`'s files (only under `path`, when given); empty when none changed."""
    record = store.record(branch)
    workspaces.require_git("diff")
    if record.worktree is not None and record.worktree.removed:
        raise UsageError(
            f"{branch} was merged and its worktree removed: it has no files to compare",
            f"its changes are on {record.parent}; `git log -p` there shows them",
        )
    git = workspaces.git(store.state, branch, create=False)
    if not git.directory.is_dir():
        raise WorkbenchError(
            f"the worktree of {branch} ({git.directory}) is missing",
            "it is made again when the branch is used; then its diff can be shown",
        )
    base = fork_base(store, workspaces, branch, git) or workspaces.head_commit(git)
    if base is None:  # no commit yet: everything is new
        base = git.run("hash-object", "-t", "tree", "--stdin", input=b"")
    return worktree_diff(git, base, path)


def worktree_diff(git: GitRunner, base: str, path: str | None) -> WorktreeDiff:
    """`git diff BASE` of the working tree, untracked files included as added (not exports,
    and not a virtual environment made in the project that `.gitignore` does not list)."""
    paths = pathspec(path)
    listed = git.run(
        "ls-files", "--others", "--exclude-standard", "--full-name", "-z", "--", *paths
    )
    top = Path(git.run("rev-parse", "--show-toplevel"))
    names = [name for name in listed.split("\0") if name and not is_export(top / name)]
    untracked = _outside_virtualenvs(names)
    with tempfile.TemporaryDirectory(prefix="workbench-diff-") as scratch:
        index = Path(scratch) / "index"
        real = Path(git.run("rev-parse", "--path-format=absolute", "--git-path", "index"))
        if real.exists():
            shutil.copyfile(real, index)
        reader = git.with_env({"GIT_INDEX_FILE": str(index)}).with_config(*READABLE_PATHS)
        if untracked:
            specs = "".join(f"{spec}\0" for name in untracked for spec in pathspec(name))
            add = ("add", "--intent-to-add", "--pathspec-from-file=-", "--pathspec-file-nul")
            reader.run(*add, input=specs.encode())
        text = reader.run("diff", "--no-color", "--no-ext-diff", "--no-renames", base, "--", *paths)
    return WorktreeDiff(text, untracked)


def _outside_virtualenvs(names: list[str]) -> list[str]:
    """`names` without the files of untracked virtual environments (a folder that holds
    `pyvenv.cfg`): thousands of installed files, none of them the branch's work."""
    roots = tuple(name.removesuffix("pyvenv.cfg") for name in names if name.endswith("pyvenv.cfg"))
    roots = tuple(r for r in roots if r.endswith("/"))  # (the project itself is not one)
    if not roots:
        return names
    return [name for name in names if not name.startswith(roots)]
