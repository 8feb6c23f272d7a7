"""Credentials in what a push would send: entries and the experiments' file commits.

The patterns live in `workbench.redaction` (one place). A push that finds one stops and names the
entry or commit; `--redact` sends a redacted copy of the entries instead (`redacted_copy`): new
commits, the originals untouched. Each copied entry records the original it stands for
(`redacts`), and the copy is deterministic (same message, parents, author and dates give the same
commit), so pushing the same line again gives the same commits and a pull of the copy is
recognised as ours, not as a divergence.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from workbench.redaction import find_secrets, redact_secrets
from workbench.sessions.store.gitcmd import GitRunner
from workbench.sessions.store.jsontext import json_bytes

_FIELD, _RECORD = "\x1f", "\x00"
REDACTS = "redacts"
"""The key, in a copied entry's record, of the original entry's id."""
MAX_NAMED = 10
COMMIT_ID = re.compile(r"^[0-9a-f]{40}$")
"""What an original's id must look like: it comes from someone else's commit."""


@dataclass(frozen=True)
class Finding:
    """One credential in an entry or a file commit."""

    where: str
    """`entry 1a2b3c4d5e (tool_result on main)` or `file commit 1a2b3c4d5e (exp): path`."""
    kind: str
    shown: str
    branch: str | None = None
    """The experiment whose file commit holds it (None: an entry)."""

    def describe(self) -> str:
        return f"{self.where}: {self.kind} {self.shown}"


def scan_entries(git: GitRunner, heads: list[str], known: list[str]) -> list[Finding]:
    """Credentials in the entries reachable from `heads` and not from `known`."""
    if not heads:
        return []
    fmt = f"--format=%H{_FIELD}%B"
    out = git.run("log", "-z", fmt, *heads, "--not", *known, "--", strip=False)
    findings = []
    for record in out.split(_RECORD):
        if not record.strip():
            continue
        commit, _, message = record.partition(_FIELD)
        # an entry's subject repeats the start of its text: a credential there is named once
        secrets = {(s.kind, s.shown): s for s in find_secrets(message)}
        findings += [Finding(_entry_name(commit, message), k, shown) for k, shown in secrets]
    return findings


def _entry_name(commit: str, message: str) -> str:
    try:
        record = json.loads(message.partition("\n\n")[2])
        what = f" ({record['type']} on {record['branch']})"
    except (ValueError, KeyError, TypeError):
        what = ""
    return f"entry {commit.strip()[:10]}{what}"


def scan_files(
    git: GitRunner, branch: str, tip: str, base: str | None, known: list[str]
) -> list[Finding]:
    """Credentials in the lines the experiment's own file commits add."""
    exclude = [base] if base else []
    out = git.run(
        "log", "-p", "-U0", "--no-color", "--no-ext-diff", "--format=%x00%H",
        tip, "--not", *exclude, *known, "--", strip=False,
    )  # fmt: skip
    findings: list[Finding] = []
    commit, path = "", ""
    for line in out.splitlines():
        if line.startswith("\0"):
            commit = line[1:].strip()
        elif line.startswith("+++ "):
            path = line[4:].removeprefix("b/")
        elif line.startswith("+") and not line.startswith("+++"):
            for secret in find_secrets(line[1:]):
                where = f"file commit {commit[:10]} ({branch}): {path}"
                findings.append(Finding(where, secret.kind, secret.shown, branch))
    return findings


def redacted_copy(git: GitRunner, heads: list[str]) -> tuple[dict[str, str], int]:
    """Copy every entry reachable from `heads` that holds a credential, or comes after one, with
    the credentials replaced; return original -> copy (unchanged entries map to themselves) and
    how many entries held one."""
    fmt = "--format=" + _FIELD.join(("%H", "%P", "%an", "%ae", "%ad", "%cn", "%ce", "%cd", "%B"))
    out = git.run(
        "log", "-z", "--reverse", "--topo-order", "--date=raw", fmt, *heads, "--", strip=False
    )
    mapping: dict[str, str] = {}
    redacted = 0
    for record in out.split(_RECORD):
        if not record.strip():
            continue
        commit, parents, an, ae, ad, cn, ce, cd, message = record.split(_FIELD, 8)
        commit = commit.strip()
        old_parents = parents.split()
        new_parents = [mapping.get(p, p) for p in old_parents]
        clean = redact_secrets(message)
        if clean == message and new_parents == old_parents:
            mapping[commit] = commit
            continue
        redacted += clean != message
        env = {
            "GIT_AUTHOR_NAME": an, "GIT_AUTHOR_EMAIL": ae, "GIT_AUTHOR_DATE": ad,
            "GIT_COMMITTER_NAME": cn, "GIT_COMMITTER_EMAIL": ce, "GIT_COMMITTER_DATE": cd,
        }  # fmt: skip
        args = ["commit-tree", f"{commit}^{{tree}}"]
        for parent in new_parents:
            args += ["-p", parent]
        text = _with_original(clean, commit)
        mapping[commit] = git.with_env(env).run(*args, "-F", "-", input=text)
    return mapping, redacted


def _with_original(message: str, original: str) -> bytes:
    """The entry message with `redacts: original` in its JSON record."""
    subject, _, body = message.partition("\n\n")
    try:
        record = json.loads(body)
    except ValueError:
        return message.encode()
    record[REDACTS] = original
    return subject.encode() + b"\n\n" + json_bytes(record) + b"\n"


def original_of(git: GitRunner, commit: str) -> str | None:
    """The entry a redacted copy stands for (None: not a copy)."""
    message = git.run("log", "-1", "--format=%B", commit, "--")
    try:
        record = json.loads(message.partition("\n\n")[2])
    except ValueError:
        return None
    original = record.get(REDACTS) if isinstance(record, dict) else None
    return original if isinstance(original, str) and COMMIT_ID.match(original) else None
