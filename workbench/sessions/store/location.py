"""Where a project's conversations live.

In a git project they live in a bare store repository of their own, `<git dir>/workbench/store.git`
inside the project's common git directory (shared by all of its worktrees), under the ref namespace
`refs/workbench/`: the project's own `git log --all`, gitk and tig never reach a conversation
commit, `git branch` stays clean and a plain `git push` sends none of it. The store holds every
object its refs need in its own object store, so `git gc --prune=now` in the project can never
break a session; it reads the project's objects (git's alternates, set per command by
`sharing_runner()`) only to send an experiment's file commits with a push. The experiments' file
commits themselves stay project branches (`wb/...`) of the project. Elsewhere the conversations
live in a bare repository of their own at `.pi/sessions.git`. Workbench's own files (session locks,
forked worktrees, the store) sit in `<git dir>/workbench/`, out of the project's working tree.
Sessions an earlier workbench kept in the project's own refs move into the store on first open
(`migrate.py`).

A `.pi/sessions.git` comes with the folder, so it may be someone else's: workbench writes only to a
store that carries its marker. A store an earlier workbench made (only `refs/workbench/` refs, no
hooks, no config beyond git's defaults) is adopted once and marked; any other is refused, with
what to do.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from workbench.config import PROJECT_DIR_NAME
from workbench.errors import WorkbenchError
from workbench.sessions.store.gitcmd import GitRunner
from workbench.sessions.store.migrate import move_old_sessions

OWN_REPOSITORY = "sessions.git"
STORE_REPOSITORY = "store.git"
REF_ROOT = "refs/workbench"
STORE_MARKER = "workbench-store"
"""The file that marks a `.pi/sessions.git` as made (or adopted) by workbench."""
DEFAULT_CONFIG = {
    "core.repositoryformatversion",
    "core.filemode",
    "core.bare",
    "core.ignorecase",
    "core.precomposeunicode",
    "core.symlinks",
    "core.logallrefupdates",
}
"""What `git init --bare` writes: any other key in a store's config is not ours."""


@dataclass(frozen=True)
class StorageLocation:
    """The repository that holds the conversations of one project."""

    project_root: Path
    git_dir: Path
    """The storage repository: the conversation's objects and refs are written here."""
    project_git_dir: Path | None = None
    """The project's (common) git directory; None when the project is not a git repository."""

    @property
    def project_is_git(self) -> bool:
        """True when the project is a git repository, so forks can get worktrees."""
        return self.project_git_dir is not None

    @property
    def private_dir(self) -> Path:
        """Workbench's own files inside the git directory (locks, worktrees, the store)."""
        return (self.project_git_dir or self.git_dir) / "workbench"

    @property
    def lock_dir(self) -> Path:
        return self.private_dir / "locks"

    def default_worktree_root(self, session_id: str) -> Path:
        """Where forked worktrees of a session go unless the settings say otherwise."""
        return self.private_dir / "worktrees" / session_id

    def runner(self) -> GitRunner:
        """A git runner for the storage repository (it sees only its own objects)."""
        return GitRunner(self.git_dir)

    def project_runner(self) -> GitRunner:
        """A git runner for the project's repository (its branches and worktrees)."""
        return GitRunner(self.project_git_dir or self.git_dir)

    def user_runner(self) -> GitRunner:
        """A git runner as the user's own git commands see it: from the project's folder in a git
        project, so that a remote configured with a relative URL (`../r.git`) is where
        `git push` finds it, not beside the git directory."""
        return GitRunner(self.project_root) if self.project_is_git else self.runner()

    def project_objects(self) -> dict[str, str]:
        """The environment that lets git read the project's objects too (git's alternates)."""
        if self.project_git_dir is None:
            return {}
        return {"GIT_ALTERNATE_OBJECT_DIRECTORIES": str(self.project_git_dir / "objects")}

    def sharing_runner(self) -> GitRunner:
        """The storage repository reading the project's objects too: a push sends the file
        commits of experiments (project objects) with the entries (the store's)."""
        return self.runner().with_env(self.project_objects())


def project_git_dir(project_root: Path) -> Path | None:
    """The common git directory of the project at `project_root`, or None outside git."""
    probe = GitRunner(project_root).try_run(
        "rev-parse", "--path-format=absolute", "--git-common-dir"
    )
    return Path(probe.stdout.strip()) if probe.status == 0 and probe.stdout.strip() else None


def find_storage(project_root: Path) -> StorageLocation | None:
    """The storage of `project_root`, or None when nothing was ever stored (no git, no own repo).
    In a git project the store is made on first use, taking in what an earlier layout left."""
    common = project_git_dir(project_root)
    if common is not None:
        store = common / "workbench" / STORE_REPOSITORY
        if not store.is_dir():
            _make_store(store)
        location = StorageLocation(project_root, store, common)
        move_old_sessions(common, location.runner())
        return location
    own = project_root / PROJECT_DIR_NAME / OWN_REPOSITORY
    if (own / "HEAD").exists():
        _check_own_store(own)
        return StorageLocation(project_root, own)
    return None


def _make_store(store: Path) -> None:
    """A new, empty store repository, made beside and renamed into place: another process
    never sees it half-made (and one that made it first wins)."""
    import shutil
    import tempfile

    store.parent.mkdir(parents=True, exist_ok=True)
    made = Path(tempfile.mkdtemp(prefix=f".{store.name}-", dir=store.parent))
    try:
        GitRunner(store.parent).run("init", "--quiet", "--bare", str(made))
        made.rename(store)
    except OSError:
        if not store.is_dir():
            raise
    finally:
        shutil.rmtree(made, ignore_errors=True)


def _check_own_store(own: Path) -> None:
    """Adopt a store an earlier workbench made; refuse one that is not ours."""
    if (own / STORE_MARKER).is_file():
        return
    foreign = _foreign_parts(own)
    if foreign:
        raise WorkbenchError(
            f"{own} was not made by workbench ({'; '.join(foreign)}): it is not used",
            f"move it aside (mv {own} {own}.foreign) to start a new store, or, if you know it is "
            f"yours, mark it: touch {own / STORE_MARKER}",
        )
    _mark(own)


def _foreign_parts(own: Path) -> list[str]:
    """What in `own` workbench would not have made: hooks, config, refs, borrowed objects."""
    found = []
    hooks = sorted(p.name for p in (own / "hooks").glob("*") if not p.name.endswith(".sample"))
    if hooks:
        found.append(f"hooks {', '.join(hooks)}")
    keys = GitRunner(own).try_run("config", "--file", str(own / "config"), "--list", "--name-only")
    extra = (
        sorted(set(keys.stdout.split()) - DEFAULT_CONFIG) if keys.status == 0 else ["unreadable"]
    )
    if extra:
        found.append(f"config {', '.join(extra)}")
    refs = GitRunner(own).try_run("for-each-ref", "--format=%(refname)").stdout.split()
    others = [ref for ref in refs if not ref.startswith(REF_ROOT + "/")]
    if others:
        found.append(f"refs {', '.join(others[:3])}{' …' if len(others) > 3 else ''}")
    if (own / "objects" / "info" / "alternates").exists():
        found.append("objects borrowed from another repository")
    return found


def _mark(own: Path) -> None:
    (own / STORE_MARKER).write_text("workbench session store\n", encoding="utf-8")


def ensure_storage(project_root: Path) -> StorageLocation:
    """The storage of `project_root`, creating `.pi/sessions.git` outside git projects."""
    found = find_storage(project_root)
    if found is not None:
        return found
    own = project_root / PROJECT_DIR_NAME / OWN_REPOSITORY
    own.parent.mkdir(parents=True, exist_ok=True)
    GitRunner(own.parent).run("init", "--quiet", "--bare", str(own))
    _mark(own)
    return StorageLocation(project_root, own)
