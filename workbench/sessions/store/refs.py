"""The conversation as git objects and refs: entries are commits, branches and state are refs.

Layout for session S in the storage repository (`location.py`; read it with plain git there,
`git -C .git/workbench/store.git ...` in a git project):
    refs/workbench/S/branches/<name>   head entry (a commit) of each conversation branch
    refs/workbench/S/state             the session state (a JSON blob, see state.py)
    git log --graph --oneline --glob='refs/workbench/S/branches/*'   shows the whole tree

An entry is a commit over the empty tree, and `update-ref NEW OLD` moves a ref only if it still
holds the value we read (a compare-and-swap). Both cost the same at any depth: no file that grows
with the history is ever rewritten. The objects are written as `git commit-tree` and
`git hash-object` would write them, by this process where it can (`objects.py`), and the refs are
moved by one `git update-ref --stdin` kept open (`ref_updates.py`): an append starts no process.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from workbench.agent.store import Entry
from workbench.sessions.store.entries import decode_entry
from workbench.sessions.store.gitcmd import GitRunner
from workbench.sessions.store.location import REF_ROOT
from workbench.sessions.store.objects import writer
from workbench.sessions.store.ref_updates import RefUpdates
from workbench.sessions.store.state import SessionState

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
_FIELD, _RECORD = "\x1f", "\x00"
_LOG_FORMAT = "--format=%H%x1f%P%x1f%B"
_REFS_FORMAT = (
    "--format=%(refname)%00%(objectname)%00%(committerdate:unix)%00%(authorname)%00"
    "%(if:equals=blob)%(objecttype)%(then)%(raw)%(end)%00"
)


RefMove = tuple[str, str, str | None]
"""A compare-and-swap of one ref: (ref, new, old), old None when it must not exist yet."""


def branch_ref(session_id: str, branch: str) -> str:
    return f"{REF_ROOT}/{session_id}/branches/{branch}"


def state_ref(session_id: str) -> str:
    return f"{REF_ROOT}/{session_id}/state"


@dataclass
class SessionRefs:
    """What `for-each-ref` says about one session: its state and its branch heads."""

    session_id: str
    state: SessionState | None
    state_blob: str | None
    heads: dict[str, str]
    last_entry_time: float
    authors: dict[str, str] = field(default_factory=dict)
    """Branch -> the git author of its head entry (who wrote it, here or on a remote)."""


class ConversationRepo:
    """Reads and writes the conversation objects of one storage repository."""

    def __init__(self, git: GitRunner) -> None:
        self.git = git
        self._empty_tree_written = False
        self._objects = writer(git.directory, git.environment)
        self._refs = RefUpdates(git, "workbench")

    def write_entry(self, message: bytes, parents: list[str]) -> str:
        """Write one entry commit and return its id (the ref is moved separately)."""
        objects = self._objects
        if not self._empty_tree_written:
            # git knows the empty tree without storing it; fsck wants it stored.
            if objects is None:
                self.git.run("hash-object", "-t", "tree", "-w", "--stdin", input=b"")
            else:
                objects.write_empty_tree()
            self._empty_tree_written = True
        if objects is not None:
            return objects.commit(EMPTY_TREE, parents, message)
        args = ["commit-tree", EMPTY_TREE]
        for parent in parents:
            args += ["-p", parent]
        return self.git.run(*args, "-F", "-", input=message)

    def move_refs(self, moves: Sequence[RefMove]) -> None:
        """Point each ref at its `new` if it still holds its `old` (None: must not exist yet),
        in one git transaction: all or none."""
        self._refs.move_all(moves)

    def prepare_moves(self) -> None:
        """Start the git process that moves the refs before the first move needs it."""
        self._refs.prepare()

    def delete_ref(self, ref: str, old: str) -> None:
        """Delete `ref` if it still holds `old`."""
        self.git.run("update-ref", "-d", ref, old)

    def write_state(
        self, state: SessionState, old_blob: str | None, moves: Sequence[RefMove] = ()
    ) -> str:
        """Store a new state blob and move the state ref to it, and the refs of `moves` in the
        same git transaction (all or none, in one process); return the blob id."""
        state.updated = time.time()
        data = state.to_json()
        if self._objects is not None:
            blob = self._objects.blob(data)
        else:
            blob = self.git.run("hash-object", "-w", "--stdin", input=data)
        self._refs.move_all([(state_ref(state.session_id), blob, old_blob), *moves])
        return blob

    def read_path(self, tip: str, *known: str) -> list[Entry]:
        """The entries from the root to `tip`, following first parents (one git process);
        without those reachable from any `known` commit (through any parent)."""
        return self._log("--first-parent", "--reverse", tip, *(f"^{commit}" for commit in known))

    def read_entry(self, commit: str) -> Entry:
        """One entry by id."""
        return self._log("-1", commit)[0]

    def has_commit(self, commit: str) -> bool:
        return self.git.try_run("cat-file", "-e", f"{commit}^{{commit}}").status == 0

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        return self.git.try_run("merge-base", "--is-ancestor", ancestor, descendant).status == 0

    def read_all(self, session_id: str) -> list[Entry]:
        """Every entry reachable from the session's branches, oldest first."""
        return self._log("--reverse", "--topo-order", f"--glob={branch_ref(session_id, '*')}")

    def _log(self, *revisions: str) -> list[Entry]:
        out = self.git.run("log", "-z", _LOG_FORMAT, *revisions, "--", strip=False)
        entries = []
        for record in out.split(_RECORD):
            if not record.strip():
                continue
            commit, parents, message = record.split(_FIELD, 2)
            first_parent = parents.split()[0] if parents.strip() else None
            entries.append(decode_entry(commit.strip(), first_parent, message))
        return entries

    def outline(self, head: str) -> tuple[str, int]:
        """The first question on the path to `head` (one line) and the path's entry count."""
        subjects = self.git.run("log", "--reverse", "--format=%s", head, "--").splitlines()
        first = next((s for s in subjects if s.startswith("user: ")), "")
        return first.removeprefix("user: "), len(subjects)

    def sessions(self, session_id: str | None = None) -> list[SessionRefs]:
        """Every session in the repository (or one): heads and state from one `for-each-ref`."""
        prefix = f"{REF_ROOT}/{session_id}/" if session_id else f"{REF_ROOT}/"
        out = self.git.run("for-each-ref", _REFS_FORMAT, prefix, strip=False)
        found: dict[str, SessionRefs] = {}
        for record in out.split("\0\n"):
            if not record:
                continue
            refname, oid, date, author, raw = record.split("\0")
            session, _, rest = refname[len(REF_ROOT) + 1 :].partition("/")
            refs = found.setdefault(session, SessionRefs(session, None, None, {}, 0.0))
            if rest == "state":
                refs.state_blob = oid
                refs.state = SessionState.from_json(raw.encode(), refname)
            elif rest.startswith("branches/"):
                refs.heads[rest.removeprefix("branches/")] = oid
                refs.authors[rest.removeprefix("branches/")] = author
                refs.last_entry_time = max(refs.last_entry_time, float(date or 0))
        return list(found.values())

    def close(self) -> None:
        """End the git process that moves the refs, if one was started."""
        self._refs.close()
