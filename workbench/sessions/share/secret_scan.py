"""Credentials in the entries and the session description a push or an export would send.

An entry is stored as a commit message holding JSON, where a newline is written `\\n`: the scan
reads the decoded strings of every field (message text, tool arguments and results, compaction
summaries, sub-agent reports, labels...) and names the field and line of each credential. The
patterns live in `workbench.redaction` (one place).

`--redact` sends a redacted copy of the entries instead (`redacted_copy`): new commits, the
originals untouched, every copy of a credential in every field replaced. Each copied entry
records the original it stands for (`redacts`), and the copy is deterministic (same message,
parents, author and dates give the same commit), so pushing the same line again gives the same
commits and a pull of the copy is recognised as ours, not as a divergence.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from workbench.errors import WorkbenchError
from workbench.redaction import (
    FieldSecret,
    find_in_value,
    find_secrets,
    redact_secrets,
    redact_value,
)
from workbench.sessions.store.entries import entry_text
from workbench.sessions.store.gitcmd import GitRunner
from workbench.sessions.store.jsontext import json_bytes
from workbench.text import count_of

_FIELD, _RECORD = "\x1f", "\x00"
REDACTS = "redacts"
"""The key, in a copied entry's record, of the original entry's id."""
MAX_NAMED = 10
COMMIT_ID = re.compile(r"^[0-9a-f]{40}$")
"""What an original's id must look like: it comes from someone else's commit."""


@dataclass(frozen=True)
class Finding:
    """One credential in what would be sent: where it is, its kind, a form that hides it."""

    where: str
    """`entry 1a2b3c4d5e (user on main), text line 2` or `commit 1a2b3c4d5e (files of exp):
    deploy.ini line 3`."""
    kind: str
    shown: str
    in_commit: bool = False
    """In a project commit (its message or files): `--redact` does not rewrite those."""

    def describe(self) -> str:
        return f"{self.where}: {self.kind} {self.shown}"


class SecretsFound(WorkbenchError):
    """Credentials in what a push or an export would send; nothing was sent or written."""

    def __init__(self, action: str, findings: list[Finding], redact_hint: str) -> None:
        named = "\n".join(f"  {f.describe()}" for f in findings[:MAX_NAMED])
        more = f"\n  … and {len(findings) - MAX_NAMED} more" if len(findings) > MAX_NAMED else ""
        in_commits = [f for f in findings if f.in_commit]
        if in_commits:
            hint = (
                "remove them from your commits first (`git commit --amend`, or "
                "`git rebase -i` for older ones, in the branch's worktree) and rotate them: "
                "--redact rewrites entries only, never your commits"
            )
        else:
            hint = f"{redact_hint}, or rotate the credential and remove it first"
        super().__init__(
            f"{action}: {count_of(len(findings), 'credential')} found in what would be sent\n"
            f"{named}{more}",
            hint,
        )
        self.findings = findings


def field_findings(where: str, value: Any) -> list[Finding]:
    """The credentials in a decoded JSON value, each named `where, FIELD line N`."""
    return [_named(where, found) for found in find_in_value(value)]


def _named(where: str, found: FieldSecret) -> Finding:
    field = found.field.removeprefix("payload.")
    line = f" line {found.line}" if found.line > 1 else ""
    place = f"{where}, {field}{line}" if field else f"{where}{line}"
    return Finding(place, found.match.kind, found.match.shown)


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
        findings += _message_findings(commit.strip(), message)
    return findings


def _message_findings(commit: str, message: str) -> list[Finding]:
    subject, _, body = message.partition("\n\n")
    record = _record(body)
    if record is None:
        return [Finding(f"entry {commit[:10]}", s.kind, s.shown) for s in find_secrets(message)]
    where = f"entry {commit[:10]} ({record.get('type')} on {record.get('branch')})"
    findings = field_findings(where, record)
    # The subject repeats the start of the text: a credential there is named once.
    seen = {(f.kind, f.shown) for f in findings}
    for secret in find_secrets(subject):
        if (secret.kind, secret.shown) not in seen:
            findings.append(Finding(f"{where}, subject", secret.kind, secret.shown))
    return findings


def _record(body: str) -> dict[str, Any] | None:
    try:
        record = json.loads(body)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


@dataclass
class RedactedCopy:
    """Original entry -> the entry sent (unchanged ones map to themselves), and how much changed."""

    mapping: dict[str, str]
    entries: int = 0
    credentials: int = 0


def redacted_copy(git: GitRunner, heads: list[str]) -> RedactedCopy:
    """Copy every entry reachable from `heads` that holds a credential, or comes after one, with
    every copy of every credential replaced."""
    fmt = "--format=" + _FIELD.join(("%H", "%P", "%an", "%ae", "%ad", "%cn", "%ce", "%cd", "%B"))
    out = git.run(
        "log", "-z", "--reverse", "--topo-order", "--date=raw", fmt, *heads, "--", strip=False
    )
    copy = RedactedCopy({})
    for record in out.split(_RECORD):
        if not record.strip():
            continue
        commit, parents, an, ae, ad, cn, ce, cd, message = record.split(_FIELD, 8)
        commit = commit.strip()
        old_parents = parents.split()
        new_parents = [copy.mapping.get(p, p) for p in old_parents]
        clean, count = _redacted_message(message, commit)
        if not count and new_parents == old_parents:
            copy.mapping[commit] = commit
            continue
        copy.entries += count > 0
        copy.credentials += count
        env = {
            "GIT_AUTHOR_NAME": an, "GIT_AUTHOR_EMAIL": ae, "GIT_AUTHOR_DATE": ad,
            "GIT_COMMITTER_NAME": cn, "GIT_COMMITTER_EMAIL": ce, "GIT_COMMITTER_DATE": cd,
        }  # fmt: skip
        args = ["commit-tree", f"{commit}^{{tree}}"]
        for parent in new_parents:
            args += ["-p", parent]
        copy.mapping[commit] = git.with_env(env).run(*args, "-F", "-", input=clean)
    return copy


def _redacted_message(message: str, original: str) -> tuple[bytes, int]:
    """The entry message with its credentials replaced and `redacts: original` in its record
    (the subject written again from the clean text), and how many credentials were replaced."""
    subject, _, body = message.partition("\n\n")
    record = _record(body)
    if record is None:
        return redact_secrets(message).encode(), len(find_secrets(message))
    clean, count = redact_value(record)
    clean[REDACTS] = original
    payload = clean.get("payload")
    kind = str(clean.get("type"))
    if isinstance(payload, dict):
        subject = f"{kind}: {entry_text(kind, payload)}"
    subject = redact_secrets(subject)
    return subject.encode() + b"\n\n" + json_bytes(clean) + b"\n", count


def original_of(git: GitRunner, commit: str) -> str | None:
    """The entry a redacted copy stands for (None: not a copy)."""
    message = git.run("log", "-1", "--format=%B", commit, "--")
    record = _record(message.partition("\n\n")[2])
    original = record.get(REDACTS) if record else None
    return original if isinstance(original, str) and COMMIT_ID.match(original) else None
