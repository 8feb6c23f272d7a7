"""Credentials in the project commits a push would add to the remote: messages and text files.

An experiment's files travel as its project branch, and with it every commit the remote does
not have yet: the experiment's own and, when the project's history was never pushed there, the
project's too. What the remote has is what it advertises (`git ls-remote`); the rest is read,
newest first, up to `MAX_COMMITS` commits: each message, and each text file a commit adds or
changes, whole (a private key spans lines), up to `MAX_FILE_BYTES`. What is left unread (older
commits, larger or binary files) is said, never silently passed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from workbench.redaction import find_secrets
from workbench.sessions.share.secret_scan import Finding
from workbench.sessions.store.gitcmd import GitRunner

MAX_COMMITS = 1000
"""Commits read per push, newest first."""
MAX_FILE_BYTES = 1 << 20
"""Larger files are not read (1 MiB)."""
BINARY_PROBE = 8000
"""A NUL byte in this many first bytes makes a file binary, as git decides it."""
_FIELD, _RECORD = "\x1f", "\x00"


@dataclass
class CommitScan:
    """What the scan of the commits found, and what it did not read."""

    findings: list[Finding] = field(default_factory=list)
    commits: int = 0
    unread_commits: int = 0
    large_files: list[str] = field(default_factory=list)
    binary_files: list[str] = field(default_factory=list)

    def unread(self) -> list[str]:
        """One line per kind of thing not read, for the push's summary."""
        lines = []
        if self.unread_commits:
            lines.append(
                f"{self.unread_commits:,} older commits not checked for credentials "
                f"(the newest {MAX_COMMITS:,} were)"
            )
        if self.large_files:
            lines.append(
                f"files over {MAX_FILE_BYTES >> 20} MiB not checked for credentials: "
                + ", ".join(sorted(set(self.large_files)))
            )
        if self.binary_files:
            lines.append(
                "binary files not checked for credentials: "
                + ", ".join(sorted(set(self.binary_files)))
            )
        return lines


def remote_commits(git: GitRunner, remote: str) -> list[str]:
    """The commits (and tags) the remote advertises that this repository has."""
    advertised = git.run("ls-remote", remote).splitlines()
    oids = sorted({line.split("\t")[0] for line in advertised if "\t" in line})
    if not oids:
        return []
    out = git.run("cat-file", "--batch-check", input="\n".join(oids).encode() + b"\n")
    return [
        fields[0]
        for fields in (line.split() for line in out.splitlines())
        if len(fields) == 3 and fields[1] in ("commit", "tag")
    ]


def scan_commits(
    git: GitRunner, tips: dict[str, tuple[str, str | None]], have: list[str]
) -> CommitScan:
    """Credentials in the commits reachable from the experiments' `tips` (branch -> tip, base)
    that are not reachable from `have`: the experiments' own, then the project's below them."""
    scan = CommitScan()
    labelled: dict[str, str] = {}
    excluded = [f"^{oid}" for oid in have]
    for branch, (tip, base) in tips.items():
        own = _rev_list(git, [tip, *([f"^{base}"] if base else []), *excluded])
        for commit in own:
            labelled.setdefault(commit, f"files of {branch}")
        if base:
            for commit in _rev_list(git, [base, *excluded]):
                labelled.setdefault(commit, "project history")
    order = list(labelled)  # newest first within each branch
    scan.unread_commits = max(0, len(order) - MAX_COMMITS)
    chosen = order[:MAX_COMMITS]
    scan.commits = len(chosen)
    if not chosen:
        return scan
    oldest_first = list(reversed(chosen))
    _scan_messages(git, oldest_first, labelled, scan)
    _scan_files(git, oldest_first, labelled, scan)
    return scan


def _rev_list(git: GitRunner, revisions: list[str]) -> list[str]:
    return git.run("rev-list", "--stdin", input="\n".join(revisions).encode() + b"\n").split()


def _where(commit: str, labelled: dict[str, str]) -> str:
    return f"commit {commit[:10]} ({labelled[commit]})"


def _scan_messages(
    git: GitRunner, commits: list[str], labelled: dict[str, str], scan: CommitScan
) -> None:
    listing = "\n".join(commits).encode() + b"\n"
    fmt = f"--format=%H{_FIELD}%B"
    out = git.run("log", "-z", "--no-walk=unsorted", "--stdin", fmt, input=listing, strip=False)
    for record in out.split(_RECORD):
        commit, _, message = record.partition(_FIELD)
        for secret in find_secrets(message):
            line = message.count("\n", 0, secret.start) + 1
            where = f"{_where(commit.strip(), labelled)} message line {line}"
            scan.findings.append(Finding(where, secret.kind, secret.shown, in_commit=True))


def _scan_files(
    git: GitRunner, commits: list[str], labelled: dict[str, str], scan: CommitScan
) -> None:
    """Each blob a commit adds or changes, read once, named at the first commit that has it."""
    listing = "\n".join(commits).encode() + b"\n"
    out = git.run(
        "diff-tree", "--stdin", "-r", "--root", "--no-renames", "-z", input=listing, strip=False
    )
    changes: list[tuple[str, str, str]] = []
    """(commit, path, blob) in commit order."""
    commit = ""
    tokens = iter(out.split("\0"))
    for token in tokens:
        if token.startswith(":"):
            fields = token[1:].split(" ")
            path = next(tokens, "")
            if len(fields) >= 4 and fields[1] != "160000" and fields[3].strip("0"):
                changes.append((commit, path, fields[3]))
        elif token.strip():
            commit = token.strip()
    sizes = _sizes(git, sorted({blob for _, _, blob in changes}))
    readable = sorted(blob for blob, size in sizes.items() if size <= MAX_FILE_BYTES)
    texts = _contents(git, readable)
    named: set[tuple[str, str, str]] = set()
    for commit, path, blob in changes:
        if sizes.get(blob, 0) > MAX_FILE_BYTES:
            scan.large_files.append(path)
            continue
        data = texts.get(blob, b"")
        if b"\0" in data[:BINARY_PROBE]:
            scan.binary_files.append(path)
            continue
        text = data.decode("utf-8", errors="replace")
        for secret in find_secrets(text):
            if (path, secret.kind, secret.shown) in named:
                continue
            named.add((path, secret.kind, secret.shown))
            line = text.count("\n", 0, secret.start) + 1
            where = f"{_where(commit, labelled)}: {path} line {line}"
            scan.findings.append(Finding(where, secret.kind, secret.shown, in_commit=True))


def _sizes(git: GitRunner, blobs: list[str]) -> dict[str, int]:
    if not blobs:
        return {}
    out = git.run("cat-file", "--batch-check", input="\n".join(blobs).encode() + b"\n")
    fields = [line.split() for line in out.splitlines()]
    return {f[0]: int(f[2]) for f in fields if len(f) == 3 and f[1] == "blob"}


def _contents(git: GitRunner, blobs: list[str]) -> dict[str, bytes]:
    """The bytes of each blob, from one `cat-file --batch`."""
    if not blobs:
        return {}
    out = git.run("cat-file", "--batch", input="\n".join(blobs).encode() + b"\n", strip=False)
    data = out.encode("utf-8", errors="surrogateescape")
    found: dict[str, bytes] = {}
    at = 0
    while at < len(data):
        end = data.index(b"\n", at)
        header = data[at:end].split()
        at = end + 1
        if len(header) != 3:
            continue
        size = int(header[2])
        found[header[0].decode()] = data[at : at + size]
        at += size + 1
    return found
