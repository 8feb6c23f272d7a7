"""A redacted copy of an experiment's own file commits, for `push --redact`.

Every commit from the experiment's base to its tip is copied with each credential in its text
files replaced (`workbench.redaction`), through a scratch index: the originals, the worktree and
the real index are untouched. A copy keeps the original's message, author and dates and adds a
`Workbench-Redacts: <original>` trailer, so the copy is the same commit every time (pushing
again fast-forwards it) and a pull recognises it as ours.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from workbench.redaction import find_secrets, redact_secrets
from workbench.sessions.share.secret_scan import COMMIT_ID
from workbench.sessions.store.gitcmd import GitRunner

TRAILER = "Workbench-Redacts"
MAX_TEXT_BYTES = 8 << 20
"""Larger files are not read for credentials (the scan before a push skips them too)."""
_FIELD = "\x1f"


def redacted_files(git: GitRunner, tip: str, base: str | None) -> tuple[str, int]:
    """The tip of the copy of `base..tip`, and how many files had a credential replaced."""
    listing = git.run(
        "rev-list",
        "--reverse",
        "--topo-order",
        "--parents",
        tip,
        "--not",
        *([base] if base else []),
    )
    mapping: dict[str, str] = {}
    clean: dict[str, str] = {}
    """Blob -> its redacted copy, for every blob found to hold a credential."""
    checked: set[str] = set()
    redacted = 0
    with tempfile.TemporaryDirectory(prefix="workbench-redact-") as scratch:
        index = {"GIT_INDEX_FILE": str(Path(scratch) / "index")}
        for line in listing.splitlines():
            commit, *parents = line.split()
            for blob in _changed_blobs(git, commit):
                if blob not in checked:
                    checked.add(blob)
                    copy = _redacted_blob(git, blob)
                    if copy is not None:
                        clean[blob] = copy
                        redacted += 1
            replacements = _replacements(git, commit, clean)
            new_parents = [mapping.get(p, p) for p in parents]
            if not replacements and new_parents == parents:
                mapping[commit] = commit
                continue
            mapping[commit] = _copy(git.with_env(index), commit, new_parents, replacements)
    return mapping.get(tip, tip), redacted


def _changed_blobs(git: GitRunner, commit: str) -> list[str]:
    """The blobs `commit` adds or changes (`:old-mode new-mode old new status`, then a path)."""
    out = git.run("diff-tree", "-r", "--root", "--no-commit-id", "-z", commit, strip=False)
    blobs = []
    for token in out.split("\0"):
        fields = token.removeprefix(":").split(" ") if token.startswith(":") else []
        if len(fields) >= 4 and fields[1] != "160000" and fields[3].strip("0"):
            blobs.append(fields[3])
    return blobs


def _redacted_blob(git: GitRunner, blob: str) -> str | None:
    size = int(git.run("cat-file", "-s", blob))
    if size > MAX_TEXT_BYTES:
        return None
    data = _blob_bytes(git, blob)
    if b"\0" in data[:8000]:
        return None
    text = data.decode("utf-8", errors="surrogateescape")
    if not find_secrets(text):
        return None
    copy = redact_secrets(text).encode("utf-8", errors="surrogateescape")
    return git.run("hash-object", "-w", "--stdin", input=copy)


def _blob_bytes(git: GitRunner, blob: str) -> bytes:
    text = git.run("cat-file", "blob", blob, strip=False)
    return text.encode("utf-8", errors="surrogateescape")


def _replacements(git: GitRunner, commit: str, clean: dict[str, str]) -> list[str]:
    """`mode,blob,path` for each file of `commit`'s tree whose blob has a redacted copy."""
    if not clean:
        return []
    out = git.run("ls-tree", "-r", "-z", "--full-tree", commit, strip=False)
    found = []
    for record in out.split("\0"):
        meta, _, path = record.partition("\t")
        fields = meta.split()
        if len(fields) == 3 and fields[2] in clean:
            found.append(f"{fields[0]},{clean[fields[2]]},{path}")
    return found


def _copy(git: GitRunner, commit: str, parents: list[str], replacements: list[str]) -> str:
    git.run("read-tree", commit)
    for item in replacements:
        git.run("update-index", "--cacheinfo", item)
    tree = git.run("write-tree")
    fmt = "--format=" + _FIELD.join(("%an", "%ae", "%ad", "%cn", "%ce", "%cd", "%B"))
    meta = git.run("log", "-1", "--date=raw", fmt, commit, "--", strip=False)
    an, ae, ad, cn, ce, cd, message = meta.split(_FIELD, 6)
    env = {
        "GIT_AUTHOR_NAME": an, "GIT_AUTHOR_EMAIL": ae, "GIT_AUTHOR_DATE": ad,
        "GIT_COMMITTER_NAME": cn, "GIT_COMMITTER_EMAIL": ce, "GIT_COMMITTER_DATE": cd,
    }  # fmt: skip
    text = f"{message.rstrip()}\n\n{TRAILER}: {commit}\n".encode()
    args = ["commit-tree", tree]
    for parent in parents:
        args += ["-p", parent]
    return git.with_env(env).run(*args, "-F", "-", input=text)


def original_commit(git: GitRunner, commit: str) -> str | None:
    """The file commit a redacted copy stands for (None: not a copy)."""
    fmt = f"--format=%(trailers:key={TRAILER},valueonly,separator=%x20)"
    found = git.run("log", "-1", fmt, commit, "--").strip().split()
    return found[-1] if found and COMMIT_ID.match(found[-1]) else None
