"""A git remote written by hand, the way someone hostile could write one: every ref, shared
description, entry and file commit is made with git's plumbing, not by workbench, so a test can
put in it what workbench itself would never write (a `.pi/` folder meant to run, escape sequences
in a session's name, a description that lies, a ref that is not a commit).

    remote = HostileRemote(tmp_path / "remote.git")
    base = remote.project({"README.md": "hello\\n"})            # refs/heads/main
    main = remote.conversation("S", "main", [("user", "hi"), ("assistant", "hello")])
    exp = remote.conversation("S", "exp", [("assistant", "on it")], parent=main)
    remote.files("S", "exp", {".pi/settings.json": "{}"}, base=base)
    remote.describe("S", {"name": "demo", "branches": {"main": {}, "exp": {"parent": "main"}}})
    alice = remote.clone(tmp_path / "alice")

Nothing here imports workbench: the remote is what arrives from outside, written to the formats
described in `workbench/sessions/remote.py` and `entries.py`.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
AUTHOR = ("Mallory", "mallory@example.com")
SHARED_TITLE = "workbench: shared session description"


class HostileRemote:
    """A bare repository; each method writes objects and refs into it by hand."""

    def __init__(self, path: Path, author: tuple[str, str] = AUTHOR) -> None:
        self.path = path
        self.author = author
        self.clock = 1_700_000_000
        subprocess.run(
            ["git", "init", "--quiet", "--bare", "--initial-branch=main", str(path)], check=True
        )

    def git(self, *args: str, stdin: bytes | None = None) -> str:
        name, email = self.author
        self.clock += 1
        env = dict(
            os.environ,
            GIT_AUTHOR_NAME=name,
            GIT_AUTHOR_EMAIL=email,
            GIT_COMMITTER_NAME=name,
            GIT_COMMITTER_EMAIL=email,
            GIT_AUTHOR_DATE=f"{self.clock} +0000",
            GIT_COMMITTER_DATE=f"{self.clock} +0000",
        )
        done = subprocess.run(
            ["git", *args], cwd=self.path, input=stdin, capture_output=True, env=env
        )
        if done.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed: {done.stderr.decode()}")
        return done.stdout.decode().strip()

    # -- objects -----------------------------------------------------------------------------

    def blob(self, data: str | bytes) -> str:
        raw = data.encode() if isinstance(data, str) else data
        return self.git("hash-object", "-w", "--stdin", stdin=raw)

    def tree(self, files: dict[str, str | bytes]) -> str:
        """A tree of `files` (paths with `/` make folders)."""
        here: dict[str, str | bytes] = {}
        below: dict[str, dict[str, str | bytes]] = {}
        for path, data in files.items():
            first, _, rest = path.partition("/")
            if rest:
                below.setdefault(first, {})[rest] = data
            else:
                here[first] = data
        lines = [f"100644 blob {self.blob(data)}\t{name}" for name, data in here.items()]
        lines += [f"040000 tree {self.tree(sub)}\t{name}" for name, sub in below.items()]
        return self.git("mktree", stdin=("\n".join(lines) + "\n").encode())

    def commit(self, tree: str, message: str | bytes, parents: tuple[str, ...] = ()) -> str:
        raw = message.encode() if isinstance(message, str) else message
        flags = [flag for parent in parents for flag in ("-p", parent)]
        return self.git("commit-tree", tree, *flags, stdin=raw)

    def ref(self, name: str, oid: str) -> None:
        """Point any ref at any object: nothing checks what it is."""
        self.git("update-ref", name, oid)

    # -- what a session on a remote is made of -----------------------------------------------

    def project(self, files: dict[str, str | bytes], parent: str | None = None) -> str:
        """A commit of the project's own files on `refs/heads/main`."""
        oid = self.commit(self.tree(files), "project files", (parent,) if parent else ())
        self.ref("refs/heads/main", oid)
        return oid

    def entry(
        self,
        session: str,
        branch: str,
        type: str,
        payload: dict[str, Any],
        parent: str | None = None,
        summary: str | None = None,
    ) -> str:
        """One conversation entry (a commit over the empty tree), the branch's ref moved to it."""
        record = {"type": type, "branch": branch, "timestamp": self.clock, "payload": payload}
        title = summary if summary is not None else str(payload.get("text", ""))[:60]
        message = f"{type}: {title}\n\n{json.dumps(record)}\n"
        oid = self.commit(EMPTY_TREE, message, (parent,) if parent else ())
        self.ref(f"refs/workbench/{session}/branches/{branch}", oid)
        return oid

    def conversation(
        self,
        session: str,
        branch: str,
        turns: list[tuple[str, str]],
        parent: str | None = None,
    ) -> str:
        """Entries of `(role, text)` in order (user and assistant messages); the last one's id."""
        head = parent
        for role, text in turns:
            payload = {"role": role, "text": text}
            head = self.entry(session, branch, role, payload, head)
        assert head is not None, "a conversation needs at least one turn"
        return head

    def files(
        self, session: str, branch: str, files: dict[str, str | bytes], base: str | None = None
    ) -> str:
        """An experiment's file commit (on `base`), as `refs/workbench/S/files/<branch>`."""
        oid = self.commit(self.tree(files), f"files of {branch}", (base,) if base else ())
        self.ref(f"refs/workbench/{session}/files/{branch}", oid)
        return oid

    def describe(self, session: str, record: dict[str, Any] | str) -> str:
        """The session's shared description: a record (or any text at all) as a commit message."""
        body = record if isinstance(record, str) else json.dumps({"version": 1, **record})
        oid = self.commit(EMPTY_TREE, f"{SHARED_TITLE}\n\n{body}\n")
        self.ref(f"refs/workbench/{session}/shared", oid)
        return oid

    def clone(self, folder: Path, name: str = "Bob Jones", email: str = "bob@example.com") -> Path:
        """A person's clone of the remote, with their own identity."""
        subprocess.run(["git", "clone", "--quiet", str(self.path), str(folder)], check=True)
        for key, value in (("user.name", name), ("user.email", email)):
            subprocess.run(["git", "config", key, value], cwd=folder, check=True)
        return folder
