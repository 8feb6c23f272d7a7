"""Snapshots of a workspace's files, so that the conversation can go back with its files.

Around each tool call that runs, the files of the branch's workspace (the checkout, or a fork's
worktree) are recorded when they changed: tracked and untracked files alike (a `.env` too), the
ones `.gitignore` leaves out left out. A snapshot is a commit in the session store, never on a
project branch, whose tree is the files and whose parent is the workspace's previous snapshot:

    refs/workbench/S/snapshots/W/latest     the newest snapshot of workspace W of session S
    refs/workbench/S/snapshots/W/<entry>    the files as they were at that entry
    git -C .git/workbench/store.git log refs/workbench/S/snapshots/W/latest   shows them

W is `checkout` or `worktree.<branch>` (the branch that owns the worktree). The files are read
through an index of the session's own (`GIT_INDEX_FILE`, kept so that an unchanged file is not
read again), never the user's; the first starts from a copy of the checkout's own
(`snapshot_seed.py`). The store is the git directory and the workspace its work tree,
so the project's git configuration (filters, hooks) plays no part. Snapshots stay on this
machine: a push sends only the refs it names (`workbench.sessions.share.push`), never these.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from workbench.errors import WorkbenchError
from workbench.sessions.store.gitcmd import ZERO_OID, GitRunner
from workbench.sessions.store.location import REF_ROOT, StorageLocation
from workbench.sessions.workspaces.snapshot_seed import seed_first_snapshot

SUBJECT = "files at "
"""A snapshot's message: this, then the entry it was taken at (or `the start`)."""


@dataclass(frozen=True)
class Snapshots:
    """The snapshots of one workspace of one session."""

    git: GitRunner
    """The store, with the workspace as its work tree and the session's index for it."""
    prefix: str
    """`refs/workbench/S/snapshots/W/`."""
    directory: Path
    """The workspace."""
    index: Path
    """The session's index of the workspace (absent before the first snapshot)."""
    excludes: tuple[str, ...] = ()
    """Pathspecs left out: the store itself when it lies in the workspace (`.pi/sessions.git`)."""

    @classmethod
    def of(
        cls, git: GitRunner, location: StorageLocation, session_id: str, key: str, directory: Path
    ) -> Snapshots:
        """`git`: the store's runner, with the identity its commits are written with."""
        index = location.private_dir / "snapshots" / f"{session_id}.{key}.index"
        index.parent.mkdir(parents=True, exist_ok=True)
        env = {"GIT_WORK_TREE": str(directory), "GIT_INDEX_FILE": str(index)}
        store = location.git_dir.resolve()
        excludes: tuple[str, ...] = ()
        if store.is_relative_to(directory.resolve()):
            excludes = (f":(top,exclude){store.relative_to(directory.resolve()).as_posix()}",)
        prefix = f"{REF_ROOT}/{session_id}/snapshots/{key}/"
        return cls(git.with_env(env), prefix, directory, index, excludes)

    # -- reading ------------------------------------------------------------------------------

    def files(self) -> str:
        """The tree of the workspace's files now (their blobs written into the store)."""
        if not self.index.exists() and seed_first_snapshot(
            self.directory, self.git.directory, self.index
        ):
            try:
                return self._read_files()
            except WorkbenchError:  # the checkout's index in a form git reads only there
                self.index.unlink(missing_ok=True)
        return self._read_files()

    def _read_files(self) -> str:
        self.git.run("add", "--all", "--", ":/", *self.excludes)
        return self.git.run("write-tree")

    def latest(self) -> str | None:
        return self.newest()[0]

    def newest(self) -> tuple[str | None, str | None]:
        """The latest snapshot and its tree (None, None before the first), in one git run."""
        out = self.git.run("for-each-ref", "--format=%(objectname) %(tree)", self.prefix + "latest")
        commit, _, tree = out.strip().partition(" ")
        return commit or None, tree or None

    def tree_of(self, commit: str) -> str:
        return self.git.run("rev-parse", f"{commit}^{{tree}}")

    def entry_of(self, commit: str) -> str | None:
        """The entry a snapshot was taken at (None: before the first)."""
        subject = self.git.run("log", "-1", "--format=%s", commit, "--")
        entry = subject.removeprefix(SUBJECT)
        return entry if entry != subject and entry != "the start" else None

    def at(self, path: list[str]) -> str | None:
        """The snapshot for the last entry of `path` (entry ids, root first): the newest one
        taken at an entry of the path, else the workspace's first (nothing ran before)."""
        out = self.git.run("for-each-ref", "--format=%(refname)%00%(objectname)", self.prefix)
        taken = dict(line.split("\0") for line in out.splitlines() if line)
        for entry in reversed(path):
            commit = taken.get(self.prefix + entry)
            if commit is not None:
                return commit
        latest = taken.get(self.prefix + "latest")
        if latest is None:
            return None
        return self.git.run("rev-list", "--max-parents=0", latest, "--").split()[-1]

    def changed(self, old_tree: str, new_tree: str) -> list[str]:
        """The paths that differ between two trees."""
        out = self.git.run(
            "diff-tree", "-r", "-z", "--name-only", "--no-renames", old_tree, new_tree
        )
        return [path for path in out.split("\0") if path]

    # -- writing ------------------------------------------------------------------------------

    def take(self, entry: str | None) -> str | None:
        """Record the files at `entry` when they changed since the latest snapshot; the new
        snapshot, or None when nothing changed."""
        tree = self.files()
        latest, latest_tree = self.newest()
        if latest_tree == tree:
            return None
        return self._record(tree, latest, entry, keep_at_entry=True)

    def _record(self, tree: str, latest: str | None, entry: str | None, keep_at_entry: bool) -> str:
        parents = ["-p", latest] if latest else []
        message = f"{SUBJECT}{entry or 'the start'}"
        commit = self.git.run("commit-tree", tree, *parents, "-m", message)
        self.git.run("update-ref", self.prefix + "latest", commit, latest or ZERO_OID)
        if entry is not None and keep_at_entry:
            self.git.run("update-ref", self.prefix + entry, commit)
        return commit

    def restore(self, snapshot: str, current: str, entry: str) -> list[str]:
        """Make the workspace's files those of `snapshot` (a two-tree checkout from the
        `current` tree, which the index holds: unchanged files are not touched, files the
        snapshot lacks are removed). The restored files become the latest snapshot, taken at
        `entry`; the paths that changed are returned."""
        target = self.tree_of(snapshot)
        paths = self.changed(current, target)
        if paths:
            self.git.run("read-tree", "-m", "-u", current, target)
            self._record(target, self.latest(), entry, keep_at_entry=False)
        return paths
