"""`workbench push`: a session's refs and its experiments' file commits to a git remote.

Everything goes under `refs/workbench/<session>/` there (see `remote.py`), in one atomic,
never-forced `git push`: either every ref moves or none does, and a branch that others have moved
on is refused. Before anything is sent the remote is fetched, so a diverged branch is refused
with what to do, and what would be sent is checked for credentials: the entries and the
description (`secret_scan.py`) and the project commits the remote does not have yet
(`commit_scan.py`). `--redact` sends the entries and the description with their credentials
replaced; a credential in a commit is never rewritten here (the commits are the user's): the
push stops and says to amend it. Locks, worktrees, the session's position and other local files
are never sent: only entries, file commits and a description of the branches without local paths.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from workbench.errors import WorkbenchError
from workbench.redaction import redact_value
from workbench.sessions.share.commit_scan import CommitScan, remote_commits, scan_commits
from workbench.sessions.share.remote import (
    SHARED,
    RemoteSession,
    chosen_remote,
    encode_shared,
    fetch,
    merged_record,
    read_shared,
    remote_ref,
    shared_record,
    tracking_prefix,
)
from workbench.sessions.share.secret_scan import (
    SecretsFound,
    field_findings,
    original_of,
    redacted_copy,
    scan_entries,
)
from workbench.sessions.store.gitcmd import GitRunner
from workbench.sessions.store.identity import conversation_identity
from workbench.sessions.store.location import StorageLocation
from workbench.sessions.store.refs import ConversationRepo, SessionRefs
from workbench.sessions.workspaces.workspace import project_branch_name
from workbench.text import count_of


@dataclass
class PushResult:
    """What a push did, ref by ref (`new`, `updated`, `up to date`, `behind`)."""

    remote: str
    session_id: str
    branches: dict[str, str] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    redacted: int = 0
    """Entries sent as redacted copies."""
    redacted_credentials: int = 0
    """Copies of credentials replaced in them (and in the description)."""
    unchecked: list[str] = field(default_factory=list)
    """What the credential check did not read (older commits, large or binary files)."""
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def render_text(self) -> str:
        lines = [f"session {self.session_id} -> {self.remote} (refs/workbench/{self.session_id}/)"]
        for name, status in self.branches.items():
            lines.append(f"  {name}: {status}")
        for name, status in self.files.items():
            lines.append(f"  files of {name}: {status}")
        if self.redacted_credentials:
            credentials = count_of(self.redacted_credentials, "credential")
            entries = count_of(self.redacted, "entry", "entries")
            lines.append(f"  {credentials} replaced: {entries} sent redacted (yours are unchanged)")
        lines += [f"  {line}" for line in self.unchecked]
        return "\n".join(lines)


REDACT_HINT = (
    "push with --redact to send a copy of the entries with them replaced (yours stay as they are)"
)


def push_session(
    location: StorageLocation,
    session_id: str,
    remote: str | None = None,
    redact: bool = False,
) -> PushResult:
    """Push one session (its full id) to `remote` (default: upstream remote, else origin)."""
    import time

    started = time.perf_counter()
    remote = chosen_remote(location, remote)
    runner = location.user_runner()  # relative remote URLs as git reads them
    repo = ConversationRepo(runner.with_env(conversation_identity(runner).env()))
    try:
        found = next(iter(repo.sessions(session_id)), None)
        if found is None or found.state is None or not found.heads:
            raise WorkbenchError(
                f"session {session_id} has no entries to push", "write something first"
            )
        theirs = fetch(runner, remote, session_id).get(session_id, RemoteSession(session_id))
        result = _push(repo, runner, found, theirs, remote, redact)
    finally:
        repo.close()
    result.seconds = time.perf_counter() - started
    return result


def _push(
    repo: ConversationRepo,
    git: GitRunner,
    found: SessionRefs,
    theirs: RemoteSession,
    remote: str,
    redact: bool,
) -> PushResult:
    state = found.state
    assert state is not None
    sid = found.session_id
    names = {
        b: state.branches[b].upstream or b
        for b in found.heads
        if b in state.branches and state.branches[b].upstream != ""
    }
    known = [*theirs.branches.values(), *theirs.files.values()]
    file_tips = _file_tips(git, found, names)
    heads = {b: found.heads[b] for b in names}
    description = shared_record(state, names)
    description["made_by"] = state.made_by or _first_author(git, list(heads.values()))
    findings = scan_entries(git, list(heads.values()), known)
    findings += field_findings("the session's description", description)
    commits = (
        scan_commits(git, file_tips, [*known, *remote_commits(git, remote)])
        if file_tips
        else CommitScan()
    )
    if commits.findings or (findings and not redact):
        raise SecretsFound("not pushed", findings + commits.findings, REDACT_HINT)
    result = PushResult(remote, sid, unchecked=commits.unread())
    if findings:
        copy = redacted_copy(git, list(heads.values()))
        heads = {b: copy.mapping[h] for b, h in heads.items()}
        description, in_description = redact_value(description)
        result.redacted, result.redacted_credentials = copy.entries, copy.credentials
        result.redacted_credentials += in_description
        for record in description["branches"].values():
            fork = record["fork_entry"]
            record["fork_entry"] = copy.mapping.get(fork, fork)
    specs: dict[str, str] = {}
    diverged: list[str] = []
    joins: list[str] = []
    for dest, local in _by_destination(names).items():
        tip = _newest(repo, [heads[b] for b in local])
        if tip is None:
            diverged.append(f"{', '.join(local)} (all sent to {dest}) have different entries")
            joins += [f"`workbench merge {b} --into {dest}`" for b in local if b != dest]
            continue
        status = _compare(repo, tip, theirs.branches.get(dest))
        if status == "diverged":
            diverged.append(_diverged_line(git, dest, local, theirs.branches[dest], found))
            continue
        result.branches[dest] = status
        if status in ("new", "updated"):
            specs[remote_ref(sid, "branches", dest)] = tip
    with_files = {b: names[b] for b in file_tips}
    for dest, local in _by_destination(with_files).items():
        branch = ", ".join(local)
        tip = _newest(repo, [file_tips[b][0] for b in local])
        if tip is None:
            diverged.append(f"the files of {branch} (all sent to {dest}) have different commits")
            continue
        status = _compare(repo, tip, theirs.files.get(dest))
        if status == "diverged":
            diverged.append(f"the files of {branch} (its project branch has other commits there)")
            continue
        result.files[dest] = status
        if status in ("new", "updated"):
            specs[remote_ref(sid, "files", dest)] = tip
    if joins:
        raise WorkbenchError(
            "not pushed: " + "; ".join(diverged),
            f"join the lines you pulled into yours first ({', '.join(joins)}), then push again",
        )
    if diverged:
        raise WorkbenchError(
            f"not pushed: {remote} has moved on: " + "; ".join(diverged),
            f"`workbench pull {remote}` first: their line becomes a branch of its own beside "
            f"yours (e.g. main@them); then `workbench merge main@them --into main` to join it "
            "into yours and push again (pushes are never forced)",
        )
    shared = _shared_commit(repo, git, theirs, description)
    if shared is not None:
        specs[remote_ref(sid, SHARED)] = shared
    if specs:
        _send(git, remote, sid, specs)
    return result


def _first_author(git: GitRunner, heads: list[str]) -> str:
    """The git author of the session's first entry."""
    roots = git.run("rev-list", "--max-parents=0", *heads, "--").split()
    return git.run("log", "-1", "--format=%an", roots[-1], "--") if roots else ""


def _file_tips(
    git: GitRunner, found: SessionRefs, names: dict[str, str]
) -> dict[str, tuple[str, str | None]]:
    """Each experiment's project branch tip and base, for the branches that have one."""
    assert found.state is not None
    tips: dict[str, tuple[str, str | None]] = {}
    for branch in names:
        worktree = found.state.branches[branch].worktree
        if worktree is None:
            continue
        name = worktree.project_branch or project_branch_name(found.session_id, branch)
        ref = f"refs/heads/{name}"
        tip = git.try_run("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").stdout.strip()
        if tip:
            tips[branch] = (tip, worktree.base)
    return tips


def _by_destination(names: dict[str, str]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for local, dest in names.items():
        grouped.setdefault(dest, []).append(local)
    return grouped


def _newest(repo: ConversationRepo, tips: list[str]) -> str | None:
    """The tip that contains all the others, or None when they went separate ways."""
    for tip in tips:
        if all(other == tip or repo.is_ancestor(other, tip) for other in tips):
            return tip
    return None


def _compare(repo: ConversationRepo, tip: str, remote_tip: str | None) -> str:
    if remote_tip is None:
        return "new"
    if remote_tip == tip:
        return "up to date"
    if repo.is_ancestor(remote_tip, tip):
        return "updated"
    if repo.is_ancestor(tip, remote_tip):
        return "behind (the remote has more: `workbench pull` brings it)"
    return "diverged"


def _diverged_line(
    git: GitRunner, dest: str, local: list[str], remote_tip: str, found: SessionRefs
) -> str:
    original = original_of(git, remote_tip)
    if original is not None and any(
        git.try_run("merge-base", "--is-ancestor", original, found.heads[b]).status == 0
        for b in local
    ):
        return f"{dest} was pushed with --redact: push with --redact again"
    return f"{dest} has entries there that you do not have, and you have entries it has not"


def _shared_commit(
    repo: ConversationRepo, git: GitRunner, theirs: RemoteSession, ours: dict[str, Any]
) -> str | None:
    """A new `shared` commit on top of theirs when ours adds to it; None when nothing does."""
    before = read_shared(git, theirs.shared)
    merged = merged_record(before, ours)
    if before == merged:
        return None
    return repo.write_entry(encode_shared(merged), [theirs.shared] if theirs.shared else [])


def _send(git: GitRunner, remote: str, session_id: str, specs: dict[str, str]) -> None:
    """One atomic push, never forced; the tracking refs follow what was sent."""
    refspecs = [f"{oid}:{ref}" for ref, oid in specs.items()]
    done = git.try_run("push", "--atomic", "--porcelain", "--quiet", remote, *refspecs)
    if done.status != 0:
        refused = [line.split("\t") for line in done.stdout.splitlines() if line.startswith("!")]
        why = [f"{parts[1].split(':')[-1]} {parts[2]}" for parts in refused if len(parts) >= 3]
        detail = "; ".join(why) or _last_line(done.stderr or done.stdout, done.status)
        moved = any("[rejected]" in line for line in why)
        raise WorkbenchError(
            f"not pushed to {remote}: {detail}",
            f"someone pushed meanwhile: `workbench pull {remote}`, then push again"
            if moved
            else "nothing was changed there (the push is atomic); try again",
        )
    prefix = tracking_prefix(remote, session_id)
    for ref, oid in specs.items():
        tracking = prefix + ref.removeprefix(f"refs/workbench/{session_id}/")
        git.run("update-ref", tracking, oid)


def _last_line(text: str, status: int) -> str:
    lines = text.strip().splitlines()
    return lines[-1] if lines else f"git exit {status}"
