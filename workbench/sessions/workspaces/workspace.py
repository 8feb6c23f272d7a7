"""Which files each conversation branch works on: the project checkout or a worktree of its own.

A fork in a git project gets a git worktree on a project branch `wb/<session>/<branch>`, created
from the parent's current commit. The parent's uncommitted work is never touched and is not
carried over: the fork starts from a known commit, and carrying the edits would make merging back
collide with the same edits still sitting uncommitted in the parent. The fork reports what it
left behind instead.

Worktrees live in `<git dir>/workbench/worktrees/<session>/<branch>` by default: inside `.git/`
they never show in the project's `git status`, are never collected by test runners or searched
by tools run from the project root, and need no ignore rule. The setting `sessions.worktrees_dir`
puts them elsewhere (relative to the project root).

Branches created by navigating (not by `fork`) and every branch of a non-git project share the
workspace of their nearest ancestor that has one: ultimately the project checkout.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from workbench.errors import UsageError, WorkbenchError
from workbench.sessions.store.gitcmd import GitRunner
from workbench.sessions.store.location import StorageLocation
from workbench.sessions.store.state import BranchRecord, SessionState, Worktree
from workbench.sessions.workspaces import half_made
from workbench.sessions.workspaces.files import uncommitted_paths

WAIT_FOR_GIT_S = 60.0
"""How long a git that is still making a worktree is waited for."""
POLL_S = 0.05


def checkout_workers() -> str:
    """`checkout.workers` for a new worktree: one git worker per idle core, by the load average
    (git's parallel checkout, for checkouts of 100 files or more; the files and the index are
    the same as one worker writes). On two idle cores a 3,000-file worktree is made about a
    quarter sooner; on cores other work keeps busy (load 1.6-2.5 of 2), the workers' starts and
    hand-overs cost ~60 ms of CPU and one worker was as quick or 40-60 ms quicker."""
    try:
        load = os.getloadavg()[0]
    except OSError:  # no load average here
        return "0"
    return str(max(1, round((os.cpu_count() or 1) - load)))


def project_branch_name(session_id: str, branch: str) -> str:
    return f"wb/{session_id}/{branch}"


def _head_ref(branch: str) -> str:
    return f"refs/heads/{branch}"


class Workspaces:
    """The working directories of a session's branches."""

    def __init__(self, location: StorageLocation, worktree_root: Path) -> None:
        self.location = location
        self.worktree_root = worktree_root
        self._adding = threading.Lock()
        """One `git worktree add` at a time: one that runs beside another can read the other's
        half-made registration and fail (`failed to read worktrees/X/commondir`)."""

    @property
    def available(self) -> bool:
        """Whether file commands can run (the project is a git repository)."""
        return self.location.project_is_git

    def require_git(self, command: str) -> None:
        if not self.available:
            raise UsageError(
                f"{command} works on files in git; {self.location.project_root} is not a git "
                "repository (the conversation tree still works)",
                "run `git init` and make a first commit to use fork worktrees, status files, "
                "commit and merge",
            )

    def owner(self, state: SessionState, branch: str) -> BranchRecord | None:
        """The branch whose worktree `branch` works in (itself or an ancestor); None: checkout."""
        record: BranchRecord | None = state.branches[branch]
        while record is not None:
            if record.worktree is not None and not record.worktree.removed:
                return record
            record = state.branches.get(record.parent) if record.parent else None
        return None

    def checkout(self, state: SessionState) -> Path:
        """The session's own checkout (where it started), or the project root if it moved."""
        root = Path(state.root) if state.root else None
        return root if root is not None and root.is_dir() else self.location.project_root

    def directory(self, state: SessionState, branch: str, create: bool = True) -> Path:
        """Where the agent's tools run for `branch`; a missing worktree is recreated unless
        `create` is False (read-only commands must not write, and hold no lock to do so)."""
        owner = self.owner(state, branch)
        if owner is None or owner.worktree is None:
            return self.checkout(state)
        return self.ensure(owner.worktree) if create else Path(owner.worktree.path)

    def git(self, state: SessionState, branch: str, create: bool = True) -> GitRunner:
        return GitRunner(self.directory(state, branch, create))

    def head_commit(self, git: GitRunner) -> str | None:
        """The commit checked out in a workspace, or None before the first commit."""
        found = git.try_run("rev-parse", "--verify", "--quiet", "HEAD^{commit}")
        return found.stdout.strip() if found.status == 0 else None

    def plan(
        self,
        session_id: str,
        names: list[str],
        state: SessionState,
        parent: str,
        left_behind: bool = True,
    ) -> list[tuple[Worktree | None, list[str], str]]:
        """The worktree each fork of `parent` named in `names` would get (all from the same
        commit: a sweep's forks are planned at once), what it leaves behind (unless
        `left_behind` is False: the caller reads it), and a note.

        Nothing is created here: the caller records the branch first, then calls `ensure`.
        """
        if not self.available:
            return [(None, [], "no worktree: the project is not a git repository")] * len(names)
        parent_git = self.git(state, parent)
        branches = [project_branch_name(session_id, name) for name in names]
        listing = ("for-each-ref", "--format=%(refname)", *map(_head_ref, branches))
        listed = parent_git.begin(*listing)  # beside the next: neither waits for the other
        head = parent_git.try_run("rev-parse", "HEAD^{commit}", "--symbolic-full-name", "HEAD")
        found = listed()
        if head.status != 0:
            return [(None, [], "no worktree: the project has no commit yet")] * len(names)
        parent_git.check(listing, found)
        base, parent_ref = head.stdout.splitlines()  # the commit, and its branch or "HEAD"
        if taken := [b for b in branches if _head_ref(b) in found.stdout.splitlines()]:
            raise UsageError(
                f"the project already has a branch {taken[0]}",
                f"pick another fork name, or delete it with `git branch -D {taken[0]}`",
            )
        uncommitted = sorted(uncommitted_paths(parent_git)) if left_behind else []
        planned: list[tuple[Worktree | None, list[str], str]] = []
        for name, branch in zip(names, branches, strict=True):
            worktree = Worktree(
                str(self.worktree_root / name),
                branch,
                base,
                parent_ref=parent_ref if parent_ref != "HEAD" else None,
            )
            note = f"worktree {worktree.path} on {branch} at {base[:10]}"
            planned.append((worktree, uncommitted, note))
        return planned

    def ensure(self, worktree: Worktree, fresh: bool = False) -> Path:
        """The worktree's directory, created (again) when it is missing or half-made. `fresh`:
        just planned (`plan` found no project branch), so most likely made by one git process."""
        path = Path(worktree.path)
        if (path / ".git").exists() and not self._discarded_half_made(path):
            return path
        with self._adding:
            return self._add(worktree, path, fresh)

    def _add(self, worktree: Worktree, path: Path, fresh: bool) -> Path:
        if (path / ".git").exists():  # made meanwhile, by the one this waited for
            return path
        git = self.location.project_runner().with_config("checkout.workers", checkout_workers())
        branch = worktree.project_branch
        if fresh:  # whatever stops it (a registration left behind...) is settled below
            new = ("worktree", "add", "--quiet", "-b", branch, str(path), worktree.base)
            if git.try_run(*new).status == 0:
                return path
        git.run("worktree", "prune")  # forget registrations whose directory is gone
        if git.try_run("show-ref", "--verify", "--quiet", f"refs/heads/{branch}").status == 0:
            git.run("worktree", "add", "--quiet", str(path), branch)
        else:
            git.run("worktree", "add", "--quiet", "-b", branch, str(path), worktree.base)
        return path

    def add_new(self, worktrees: list[Worktree]) -> None:
        """Make the project branches of worktrees that do not exist yet, in one git process (a
        sweep's forks): each worktree is checked out from its branch on first use (`ensure`),
        when its run starts, so that a sweep does not wait for every checkout before its first."""
        made = "".join(f"create refs/heads/{w.project_branch} {w.base}\n" for w in worktrees)
        self.location.project_runner().run("update-ref", "--stdin", input=made.encode())

    def _discarded_half_made(self, path: Path) -> bool:
        """Remove the worktree at `path` if a killed `git worktree add` left it half-made; wait
        while a git still makes it (its workbench was killed, not the git). True: removed."""
        deadline = time.monotonic() + WAIT_FOR_GIT_S
        while half_made.initializing(path):
            running = half_made.adders(path)
            if running is None:
                raise WorkbenchError(
                    f"the worktree {path} is half-made, and whether git still makes it cannot be "
                    "told here (no `ps`)",
                    f"once no git works on it, remove it with `git worktree remove --force --force "
                    f"{path}`; it is made again when the branch is used",
                )
            if not running:
                git = self.location.project_runner()
                git.run("worktree", "remove", "--force", "--force", str(path))
                return True
            if time.monotonic() > deadline:
                raise WorkbenchError(
                    f"git (pid {running[0]}) is still making the worktree {path}",
                    "wait until it is done and try again, or stop that git",
                )
            time.sleep(POLL_S)
        return False

    def discard(self, worktree: Worktree) -> None:
        """Remove a worktree that could not be made whole, and its project branch."""
        import shutil  # only here: a fork that goes well needs none of it

        git = self.location.project_runner()
        git.try_run("worktree", "remove", "--force", "--force", worktree.path)
        shutil.rmtree(worktree.path, ignore_errors=True)
        git.try_run("worktree", "prune")
        git.try_run("branch", "-D", worktree.project_branch)

    def remove(self, worktree: Worktree) -> None:
        """Remove a merged branch's worktree and its project branch (its commits are merged)."""
        git = self.location.project_runner()
        tip = GitRunner(Path(worktree.path)).run("rev-parse", "HEAD")
        result = git.try_run("worktree", "remove", worktree.path)
        if result.status != 0:
            raise WorkbenchError(
                f"could not remove the worktree {worktree.path}: {result.stderr.strip()}",
                "it is kept; remove it yourself with `git worktree remove` once you are done",
            )
        git.run("update-ref", "-d", f"refs/heads/{worktree.project_branch}", tip)
        worktree.removed = True
