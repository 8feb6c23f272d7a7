"""A workspace's first snapshot made cheap: start from what the project's own git already holds.

Without a start, the first snapshot hashes every file of the workspace and writes each as a loose
object into the session store (seconds on a few thousand files). A git checkout already has
those files hashed: its index lists each with its blob and its stat data. So before the first
snapshot, the blobs of the checkout's index that the store lacks are copied into it as one pack
(git's own `pack-objects`, which reuses the project's compressed data and searches no new
deltas), and the index itself becomes the snapshot's index: `git add --all` then reads only the
files whose stat data changed, and writes only what the project lacks (changed and untracked
files). Whatever does not fit (no git checkout, a checkout whose root is not the workspace, a
sparse checkout, a pack that cannot be made) leaves the plain way: an empty index, every file
read once.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

from workbench.sessions.store.gitcmd import GitRunner

log = logging.getLogger(__name__)

GITLINK = "160000"
"""A submodule's entry: a commit of another repository, never copied."""


def seed_first_snapshot(directory: Path, store: Path, index: Path) -> bool:
    """Copy the checkout's blobs into `store` and its index to `index`; False when the plain
    way must be taken (nothing is left half done that would matter: a pack is only objects)."""
    project = GitRunner(directory)
    found = project.try_run(
        "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-path", "index"
    )
    lines = found.stdout.splitlines()
    if found.status != 0 or len(lines) != 2 or Path(lines[0]) != directory.resolve():
        return False
    listed = project.try_run("ls-files", "--stage", "-t", "-z")
    if listed.status != 0:
        return False
    blobs: set[str] = set()
    for line in filter(None, listed.stdout.split("\0")):
        tag, mode, oid, _ = line.split(" ", 3)
        if tag == "S":  # a sparse checkout: files absent on purpose, which `add` would skip
            return False
        if mode != GITLINK:
            blobs.add(oid)
    missing = _missing(GitRunner(store), blobs)
    if missing:
        pack = store / "objects" / "pack" / "pack"
        names = "".join(f"{oid}\n" for oid in missing).encode()
        packed = project.try_run("pack-objects", "--quiet", "--window=0", str(pack), input=names)
        if packed.status != 0:
            log.info("first snapshot read in full: %s", packed.stderr)
            return False
    shutil.copyfile(lines[1], index)
    return True


def _missing(store: GitRunner, blobs: set[str]) -> list[str]:
    """The blobs the store lacks (a second session in the project finds most there)."""
    if not blobs:
        return []
    names = "".join(f"{oid}\n" for oid in sorted(blobs)).encode()
    out = store.run("cat-file", "--batch-check=%(objectname)", input=names)
    return [line.split()[0] for line in out.splitlines() if line.endswith(" missing")]
