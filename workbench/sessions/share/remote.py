"""Sessions on a git remote: where they go there, and what a fetch brings back here.

On the remote, session S is nothing but refs under `refs/workbench/S/`, so that a plain
`git push` or `git fetch` of anyone else never touches it:

    refs/workbench/S/branches/<name>   the head entry of each conversation branch
    refs/workbench/S/files/<name>      the file commits of a forked experiment (its project branch)
    refs/workbench/S/shared            what the branches are (a commit whose message is JSON):
                                       parent, fork entry, files base; no path, position, lock

A fetch copies them to `refs/workbench-remotes/<remote>/S/...` here, the way `git fetch` keeps
`refs/remotes/origin/*`: those refs are the remote's view; pulling then brings them into the
session's own refs (`pull.py`), and pushing compares against them first (`push.py`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.errors import UsageError, WorkbenchError
from workbench.sessions.store.gitcmd import GitRunner
from workbench.sessions.store.jsontext import json_bytes
from workbench.sessions.store.location import REF_ROOT, StorageLocation
from workbench.sessions.store.state import SessionState

TRACKING_ROOT = "refs/workbench-remotes"
SHARED = "shared"
SHARED_VERSION = 1


def default_remote(location: StorageLocation) -> str:
    """The upstream remote of the checkout's branch, else `origin`."""
    git = location.user_runner()
    branch = git.try_run("symbolic-ref", "--quiet", "--short", "HEAD").stdout.strip()
    if branch:
        upstream = git.try_run("config", "--get", f"branch.{branch}.remote").stdout.strip()
        if upstream and upstream != ".":
            return upstream
    if "origin" in git.try_run("remote").stdout.split():
        return "origin"
    raise UsageError(
        "no remote to share sessions through: the branch has no upstream and there is no origin",
        "name one (`workbench push REMOTE`, a remote name, URL or path), or add one with "
        "`git remote add origin URL`",
    )


def chosen_remote(location: StorageLocation, remote: str | None) -> str:
    """The remote to share through: the one named, else the default (`default_remote`). A
    local path is made absolute from the working directory, where the user typed it: git runs
    in the storage's git directory, where `../r.git` would be somewhere else."""
    if not remote:
        return default_remote(location)
    git = location.user_runner()
    if remote in git.try_run("remote").stdout.split():
        return remote
    scp_like = ":" in remote and "/" not in remote.partition(":")[0]  # host:path, as git reads it
    if "://" in remote or scp_like:
        return remote
    if "/" in remote or remote.startswith(".") or Path(remote).exists():
        return str(Path(remote).resolve())
    return remote


def tracking_name(remote: str) -> str:
    """A remote (a name, URL or path) as one ref component: no `..` and no `.lock` end, which
    git refuses in a ref name (`file:///a/b/../r.git`)."""
    name = re.sub(r"\.{2,}", "_", re.sub(r"[^A-Za-z0-9._-]+", "_", remote)).strip("._")
    return (name + "_" if name.endswith(".lock") else name) or "remote"


def tracking_prefix(remote: str, session_id: str | None = None) -> str:
    base = f"{TRACKING_ROOT}/{tracking_name(remote)}"
    return f"{base}/{session_id}/" if session_id else f"{base}/"


@dataclass
class RemoteSession:
    """What a remote holds of one session, as last fetched."""

    session_id: str
    branches: dict[str, str] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    shared: str | None = None
    """The `shared` commit."""
    not_commits: list[str] = field(default_factory=list)
    """Refs that name something else than a commit (`shared is a blob`): written by hand, not
    by workbench; they are left out above."""


def fetch(git: GitRunner, remote: str, session_id: str | None = None) -> dict[str, RemoteSession]:
    """Bring the remote's sessions (or one) into the tracking refs; return what it holds.

    The tracking refs are the remote's view and are overwritten (and pruned) like
    `refs/remotes/*`; the session's own refs are never touched here.
    """
    source = f"{REF_ROOT}/{session_id}/*" if session_id else f"{REF_ROOT}/*"
    target = f"{tracking_prefix(remote, session_id)}*"
    done = git.try_run("fetch", "--quiet", "--no-tags", "--prune", remote, f"+{source}:{target}")
    if done.status != 0:
        detail = (done.stderr or done.stdout).strip().splitlines()
        raise WorkbenchError(
            f"could not fetch sessions from {remote}: {detail[-1] if detail else done.status}",
            "check the remote's name or URL (`git remote -v`) and that you can reach it",
        )
    return tracked(git, remote, session_id)


def tracked(git: GitRunner, remote: str, session_id: str | None = None) -> dict[str, RemoteSession]:
    """The remote's sessions as the tracking refs last saw them."""
    prefix = tracking_prefix(remote, session_id) if session_id else tracking_prefix(remote)
    base = tracking_prefix(remote)
    out = git.run("for-each-ref", "--format=%(objecttype) %(objectname) %(refname)", prefix)
    found: dict[str, RemoteSession] = {}
    for line in out.splitlines():
        kind, oid, ref = line.split(" ", 2)
        session, _, rest = ref[len(base) :].partition("/")
        entry = found.setdefault(session, RemoteSession(session))
        if kind != "commit":
            entry.not_commits.append(f"{rest} is a {kind}, not a commit")
        elif rest == SHARED:
            entry.shared = oid
        elif rest.startswith("branches/"):
            entry.branches[rest.removeprefix("branches/")] = oid
        elif rest.startswith("files/"):
            entry.files[rest.removeprefix("files/")] = oid
    return found


def remote_ref(session_id: str, kind: str, name: str = "") -> str:
    """`refs/workbench/S/branches/NAME`, `.../files/NAME` or `.../shared` on the remote."""
    return f"{REF_ROOT}/{session_id}/{kind}/{name}" if name else f"{REF_ROOT}/{session_id}/{kind}"


# --- the shared description of a session -------------------------------------------------------


def shared_record(state: SessionState, names: dict[str, str]) -> dict[str, Any]:
    """What others need to know about the session's branches: no paths, position or locks.
    `names` maps each local branch to its name on the remote."""
    branches = {}
    own_name_first = sorted(state.branches.items(), key=lambda item: item[0] == names.get(item[0]))
    for local, record in own_name_first:  # a branch of the remote's name wins over a follower
        if local not in names:
            continue
        worktree = record.worktree
        parent = names.get(record.parent or "", record.parent)
        branches[names[local]] = {
            "parent": parent if parent != names[local] else None,
            "fork_entry": record.fork_entry,
            "created": record.created,
            "files_base": worktree.base if worktree else None,
        }
    return {
        "version": SHARED_VERSION,
        "session_id": state.session_id,
        "name": state.name,
        "created": state.created,
        "branches": branches,
    }


def merged_record(theirs: dict[str, Any] | None, ours: dict[str, Any]) -> dict[str, Any]:
    """Their description with our branches added (a branch they describe keeps their record)."""
    if not theirs:
        return ours
    merged = dict(theirs)
    merged["branches"] = {**ours["branches"], **theirs.get("branches", {})}
    merged["name"] = theirs.get("name") or ours["name"]
    return merged


def encode_shared(record: dict[str, Any]) -> bytes:
    return b"workbench: shared session description\n\n" + json_bytes(record, indent=1) + b"\n"


def read_shared(git: GitRunner, commit: str | None) -> dict[str, Any] | None:
    if commit is None:
        return None
    message = git.run("log", "-1", "--format=%B", commit, "--")
    try:
        record = json.loads(message.partition("\n\n")[2])
    except ValueError as exc:
        raise WorkbenchError(
            f"the shared session description {commit[:12]} cannot be read: {exc}",
            f"inspect it with `git show {commit[:12]}`",
        ) from exc
    return record if isinstance(record, dict) else None
