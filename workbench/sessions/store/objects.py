"""Git objects of the conversation written straight into the store's object folder.

An append writes one commit (and, the first time, the state blob); a `git commit-tree` or
`git hash-object` process for each costs a few milliseconds, more than everything else an
append does. A loose object is a file git defines once and for all: the zlib-deflated
`TYPE SIZE\\0BODY`, named by the SHA-1 of that text, written to a temporary file and linked into
place (what git does; a second writer of the same object finds it there). The bytes are exactly
those `git commit-tree` would write (checked against it by the tests).

Only where nothing could make git write them differently: a SHA-1 repository, no
`GIT_*_DATE`, `GIT_DIR` or `GIT_OBJECT_DIRECTORY` in the environment, and an author git would
take as it is. Elsewhere `writer()` answers None and git itself writes them.
"""

from __future__ import annotations

import contextlib
import errno
import os
import time
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.errors import DiskFull

if TYPE_CHECKING:
    from hashlib import sha1
else:
    try:  # CPython's own SHA-1, which hashlib falls back to; hashlib loads OpenSSL (~4 ms)
        from _sha1 import sha1
    except ImportError:  # a Python built without it
        from hashlib import sha1

OVERRIDES = ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE", "GIT_DIR", "GIT_OBJECT_DIRECTORY")
"""Environment variables that change what or where git would write."""
IDENTITY = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL")
_CRUD = " \t\n.,:;<>\"\\'"
"""What git trims from the ends of a name or email (`strbuf_addstr_without_crud`)."""


class LooseObjects:
    """Writes blobs and commits into one repository's `objects` folder."""

    def __init__(self, folder: Path, author: str) -> None:
        self.folder = folder
        self.author = author
        """`Name <email>`, as the commit's author and committer lines carry it."""

    def blob(self, body: bytes) -> str:
        return self._write(b"blob", body)

    def write_empty_tree(self) -> None:
        """The empty tree, which git knows without storing it (`git fsck` wants it stored)."""
        self._write(b"tree", b"")

    def commit(self, tree: str, parents: list[str], message: bytes) -> str:
        """What `git commit-tree TREE -p P... -F -` writes with `message` on stdin, now."""
        now = int(time.time())
        offset = time.localtime(now).tm_gmtoff
        sign = "+" if offset >= 0 else "-"
        zone = f"{sign}{abs(offset) // 3600:02d}{abs(offset) % 3600 // 60:02d}"
        lines = [f"tree {tree}", *(f"parent {p}" for p in parents)]
        lines += [f"author {self.author} {now} {zone}", f"committer {self.author} {now} {zone}"]
        return self._write(b"commit", ("\n".join(lines) + "\n\n").encode() + message)

    def _write(self, kind: bytes, body: bytes) -> str:
        data = kind + b" %d\0" % len(body) + body
        oid = sha1(data).hexdigest()  # git's object names, not a security check
        folder = self.folder / oid[:2]
        path = folder / oid[2:]
        if path.exists():
            return oid
        try:
            folder.mkdir(exist_ok=True)
            handle, temporary = _temporary(folder)
            try:
                with os.fdopen(handle, "wb") as file:
                    file.write(zlib.compress(data, 1))
                temporary.chmod(0o444)
                _move_into_place(temporary, path)
            finally:
                with contextlib.suppress(FileNotFoundError):  # renamed into place
                    temporary.unlink()
        except OSError as exc:
            if exc.errno == errno.ENOSPC:
                raise DiskFull(str(self.folder)) from exc
            raise
        return oid


def _temporary(folder: Path) -> tuple[int, Path]:
    """A new file in `folder`, open for writing, named as git names its own (`tmp_obj_`):
    what `tempfile.mkstemp` makes, without importing tempfile (~5 ms of a fork)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    while True:
        path = folder / f"tmp_obj_{os.urandom(6).hex()}"
        try:
            return os.open(path, flags, 0o600), path
        except FileExistsError:
            continue


def _move_into_place(temporary: Path, path: Path) -> None:
    """Link the finished file to its name, as git does; where the file system has no hard links,
    rename it (git's fallback too). An object already there holds the same bytes."""
    try:
        os.link(temporary, path)
    except FileExistsError:
        pass
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise
        temporary.replace(path)


def writer(git_dir: Path, env: Mapping[str, str]) -> LooseObjects | None:
    """A writer for the repository at `git_dir` whose git commands run with `env` added to this
    process's environment; None where git might write the objects differently."""
    merged = {**os.environ, **env}
    if any(name in merged for name in OVERRIDES):
        return None
    name, email = merged.get("GIT_AUTHOR_NAME", ""), merged.get("GIT_AUTHOR_EMAIL", "")
    if (name, email) != (merged.get("GIT_COMMITTER_NAME"), merged.get("GIT_COMMITTER_EMAIL")):
        return None
    for part in (name, email):
        if not part or part != part.strip(_CRUD) or any(c in part for c in "<>\n\0"):
            return None
    try:
        config = (git_dir / "config").read_text(encoding="utf-8", errors="replace").lower()
    except OSError:
        return None
    if "objectformat" in config or not (git_dir / "objects").is_dir():
        return None
    return LooseObjects(git_dir / "objects", f"{name} <{email}>")
