"""`workbench pull`: the sessions others pushed, brought into this repository's own refs.

For each session on the remote (fetched into the tracking refs first, see `remote.py`), each of
its branches is brought in: a new branch is created, one that only moved ahead is fast-forwarded,
and one that went another way than ours is never overwritten: their line becomes a branch of its
own beside ours, `<branch>@<author>` (e.g. `main@bob`), forked where the two lines part, and it
follows the remote's branch from then on (its `upstream`). The experiments' file commits come as
project branches `wb/<session>/<branch>`, checked out in a worktree when the branch is used; a
pull that brings new files into a worktree the user trusted withdraws that trust (`trust.py`).

A session is brought in under its lock, so a session open in another process is left for later;
the state is written before the refs (a process killed in between leaves branches whose head is
their fork entry, which a second pull moves on).
"""

from __future__ import annotations

import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from workbench.errors import WorkbenchError
from workbench.sessions.share.remote import RemoteSession, chosen_remote, fetch, read_shared
from workbench.sessions.share.secret_scan import COMMIT_ID, original_of
from workbench.sessions.store.gitcmd import GitRunner
from workbench.sessions.store.identity import conversation_identity
from workbench.sessions.store.location import StorageLocation
from workbench.sessions.store.lock import SessionLock
from workbench.sessions.store.refs import ConversationRepo, branch_ref
from workbench.sessions.store.state import BranchRecord, Position, SessionState, Worktree
from workbench.sessions.workspaces.workspace import project_branch_name
from workbench.trust import TrustStore


@dataclass
class PullResult:
    """What a pull did, session by session, one line per branch that changed."""

    remote: str
    sessions: dict[str, list[str]] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    diverged: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def render_text(self) -> str:
        if not self.sessions and not self.skipped:
            return f"no sessions on {self.remote}"
        lines = []
        for session, changes in self.sessions.items():
            lines.append(f"session {session} from {self.remote}")
            lines += [f"  {change}" for change in changes] or ["  up to date"]
        for session, why in self.skipped.items():
            lines.append(f"session {session}: not pulled: {why}")
        return "\n".join(lines)


def pull_sessions(
    location: StorageLocation, remote: str | None = None, session_id: str | None = None
) -> PullResult:
    """Fetch every session on `remote` (or the one named) and bring each one in (see the
    module's docstring)."""
    started = time.perf_counter()
    remote = chosen_remote(location, remote)
    runner = location.runner()
    identity = conversation_identity(location.project_runner())
    repo = ConversationRepo(runner.with_env(identity.env()))
    result = PullResult(remote)
    try:
        for sid, theirs in sorted(fetch(location, remote, session_id).items()):
            try:
                shared = _readable(runner, theirs)
            except WorkbenchError as exc:
                result.skipped[sid] = f"{exc.message}; {exc.hint}"
                continue
            if not theirs.branches:
                continue
            lock_path = location.lock_dir / f"{sid}.lock"
            try:
                lock = SessionLock.acquire(lock_path, sid)
            except WorkbenchError as exc:
                result.skipped[sid] = f"{exc.message}; pull again once it is closed"
                continue
            try:
                puller = _Puller(location, repo, runner, theirs, shared, remote)
                result.sessions[sid] = puller.run()
                result.diverged += puller.diverged
            finally:
                lock.release()
    finally:
        repo.close()
    result.seconds = time.perf_counter() - started
    return result


class _Puller:
    """Brings one remote session into the local refs."""

    def __init__(
        self,
        location: StorageLocation,
        repo: ConversationRepo,
        git: GitRunner,
        theirs: RemoteSession,
        shared: dict[str, Any],
        remote: str,
    ) -> None:
        self.location, self.repo, self.git = location, repo, git
        self.theirs, self.shared, self.remote = theirs, shared, remote
        self.sid = theirs.session_id
        self.lines: list[str] = []
        self.diverged: list[str] = []
        self.moves: list[tuple[str, str, str | None]] = []
        self.retired = False

    def run(self) -> list[str]:
        shared = self.shared
        described = _described(shared)
        found = next(iter(self.repo.sessions(self.sid)), None)
        if found is None or found.state is None:
            now = time.time()
            state = SessionState.new(self.sid, now, self.location.project_root)
            state.name = str(shared.get("name") or "")[:200]
            state.created = _number(shared.get("created"), now)
            state.remote = self.remote
            state.made_by = str(shared.get("made_by") or "")[:100]
            state.branches = {}
            heads: dict[str, str] = {}
            blob = None
        else:
            state, heads, blob = found.state, dict(found.heads), found.state_blob
        local_of: dict[str, str] = {}

        def order(name: str) -> tuple[bool, float, str]:
            info = described.get(name, {})
            return (info.get("parent") is not None, _number(info.get("created"), 0.0), name)

        for name in sorted(self.theirs.branches, key=order):
            local_of[name] = self._branch(state, heads, name, described.get(name, {}), local_of)
        if state.position.branch not in state.branches and state.branches:
            state.position = Position(next(iter(state.branches)))
        changed = bool(self.moves) or blob is None or self.retired
        if changed:  # the state and the branches it names move together, or none does
            self.repo.write_state(state, blob, self.moves)
        for name, local in local_of.items():
            if name in self.theirs.files:
                self._files(state, local, self.theirs.files[name])
        return self.lines

    def _branch(
        self,
        state: SessionState,
        heads: dict[str, str],
        name: str,
        info: dict[str, Any],
        local_of: dict[str, str],
    ) -> str:
        """Bring remote branch `name` in; return the local branch that follows it."""
        oid = self.theirs.branches[name]
        tracker = _tracker(state, name)
        own = state.branches.get(name)
        if tracker not in (None, name) and own is not None and own.upstream is None:
            joined, ours = heads.get(tracker), heads.get(name)
            if joined and ours and self.repo.is_ancestor(joined, ours):
                state.branches[tracker].upstream = ""  # merged into ours: ours follows it now
                self.retired = True
                tracker = name
        if tracker is None:
            parent = info.get("parent") if info.get("parent") in self.theirs.branches else None
            local = name if name not in state.branches else self._free(state, name, oid)
            record = BranchRecord(
                local,
                local_of.get(parent, parent) if parent else None,
                _commit_id(info.get("fork_entry")),
                _number(info.get("created"), time.time()),
                self._worktree(local, info) if name in self.theirs.files else None,
                upstream=None if local == name else name,
                written_as=None if local == name else name,
            )
            state.branches[local] = record
            self.moves.append((branch_ref(self.sid, local), oid, None))
            self.lines.append(f"{local}: new")
            return local
        head = heads.get(tracker) or state.branches[tracker].fork_entry
        if head == oid or (head and self.repo.is_ancestor(oid, head)):
            return tracker
        if head is None or self.repo.is_ancestor(head, oid):
            self.moves.append((branch_ref(self.sid, tracker), oid, heads.get(tracker)))
            self.lines.append(f"{tracker}: updated")
            return tracker
        original = original_of(self.git, oid)
        if original and (original == head or self.repo.is_ancestor(original, head)):
            return tracker  # the redacted copy of what we have: nothing new
        local = self._free(state, name, oid)
        fork = self.git.try_run("merge-base", head, oid).stdout.strip() or None
        record = BranchRecord(
            local,
            tracker,
            fork,
            time.time(),
            self._worktree(local, info) if name in self.theirs.files else None,
            upstream=name,
            written_as=name,
        )
        if tracker != name:  # a kept line we wrote on ourselves: it goes on under its own name
            state.branches[tracker].upstream = None
        state.branches[local] = record
        self.moves.append((branch_ref(self.sid, local), oid, None))
        line = (
            f"{name} diverged: their line is now the branch {local} (forked at "
            f"{(fork or 'the start')[:10]}); yours stays {tracker}"
        )
        self.lines.append(line)
        self.diverged.append(f"{self.sid} {line}")
        return local

    def _free(self, state: SessionState, name: str, oid: str) -> str:
        """`<name>@<author>`, or with `-N` when that is taken."""
        author = self.git.run("log", "-1", "--format=%an", oid, "--")
        who = re.sub(r"[^a-z0-9._-]+", "", (author.split() or ["them"])[0].lower()) or "them"
        base = f"{name}@{who}"[:60]
        candidate, n = base, 1
        while candidate in state.branches:
            n += 1
            candidate = f"{base}-{n}"
        return candidate

    def _worktree(self, local: str, info: dict[str, Any]) -> Worktree:
        path = self.location.default_worktree_root(self.sid) / local
        base = _commit_id(info.get("files_base")) or ""
        return Worktree(str(path), project_branch_name(self.sid, local), base)

    def _files(self, state: SessionState, local: str, oid: str) -> None:
        """The experiment's file commits as its project branch (fast-forward only)."""
        record = state.branches[local]
        if record.worktree is None:
            return
        ref = f"refs/heads/{record.worktree.project_branch}"
        project = self.location.project_runner()
        have = project.try_run("rev-parse", "--verify", "--quiet", ref).stdout.strip()
        files = ConversationRepo(project)
        if have == oid or (have and files.is_ancestor(oid, have)):
            return
        if have and not files.is_ancestor(have, oid):
            self.lines.append(
                f"files of {local}: not updated, their commit {oid[:10]} went another way "
                f"(it stays in {ref.replace('refs/heads/', '')}'s remote view)"
            )
            return
        path = Path(record.worktree.path)
        if have and (path / ".git").exists():
            done = GitRunner(path).try_run("merge", "--ff-only", "--quiet", oid)
            if done.status != 0:
                self.lines.append(
                    f"files of {local}: not updated ({done.stderr.strip().splitlines()[-1:]}); "
                    f"commit or stash in {path}, then pull again"
                )
                return
        else:
            project.run("update-ref", ref, oid, have or "0" * 40)
        withdrawn = TrustStore().revoke(path)
        note = f" (trust in {path} withdrawn: read what came, then `workbench trust {path}`)"
        self.lines.append(f"files of {local}: {'updated' if have else 'new'}{note * withdrawn}")


def _readable(git: GitRunner, theirs: RemoteSession) -> dict[str, Any]:
    """The session's shared description, once its refs are known to be what workbench writes
    (someone may have written them by hand): else an error saying which are not."""
    if theirs.not_commits:
        wrong = "; ".join(theirs.not_commits)
        raise WorkbenchError(
            f"its refs on the remote are not what workbench writes: {wrong}",
            "ask whoever pushed it to push it again; the other sessions are pulled",
        )
    return read_shared(git, theirs.shared) or {}


def _described(shared: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The branch records of a shared description, dropping what is not a record: it comes from
    someone else's repository."""
    branches = shared.get("branches")
    if not isinstance(branches, dict):
        return {}
    return {str(k): v for k, v in branches.items() if isinstance(v, dict)}


def _commit_id(value: Any) -> str | None:
    """A full commit id from someone else's description, or None: never an option or a path."""
    return value if isinstance(value, str) and COMMIT_ID.match(value) else None


def _number(value: Any, default: float) -> float:
    return float(value) if isinstance(value, int | float) else default


def _tracker(state: SessionState, remote_name: str) -> str | None:
    """The local branch that follows the remote's `remote_name`."""
    followers = [n for n, r in state.branches.items() if r.upstream == remote_name]
    if followers:
        return sorted(followers, key=lambda n: state.branches[n].created)[-1]
    record = state.branches.get(remote_name)
    return remote_name if record is not None and record.upstream is None else None
