"""The credential check before an export, the same as a push's: a page is meant to be shared.

What an export shows is read for credentials: each entry's decoded fields, the session's name,
and the diff of the branch's files (untracked ones too: a `.env` that `.gitignore` does not list
is one). One found stops the export and is named (entry and field, or file and line); with
`--redact` the page is written with every copy replaced, the session untouched.
"""

from __future__ import annotations

import re
from dataclasses import replace

from workbench.agent.store import Entry
from workbench.redaction import find_secrets, redact_secrets, redact_value
from workbench.sessions.share.secret_scan import Finding, SecretsFound, field_findings

REDACT_HINT = "export with --redact to write it with them replaced (the session stays as it is)"
HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def check_export(
    entries: list[Entry], name: str, diff: str, branch: str, redact: bool
) -> tuple[list[Entry], str, str, int]:
    """The entries, name and diff to render, and how many credentials were replaced in them;
    `SecretsFound` when there are some and `redact` is off."""
    findings = [
        finding
        for entry in entries
        for finding in field_findings(
            f"entry {entry.id[:10]} ({entry.type} on {entry.branch})", entry.payload
        )
    ]
    findings += field_findings("the session's name", name)
    findings += diff_findings(diff, branch)
    if not findings:
        return entries, name, diff, 0
    if not redact:
        raise SecretsFound("not exported", findings, REDACT_HINT)
    clean = []
    for entry in entries:
        payload, _ = redact_value(entry.payload)
        clean.append(replace(entry, payload=payload))
    return clean, redact_secrets(name), redact_secrets(diff), len(findings)


def diff_findings(diff: str, branch: str) -> list[Finding]:
    """Credentials in a unified diff, each named by file and line (of the new version)."""
    if not diff:
        return []
    places: list[tuple[int, str, int]] = []
    """(offset in the diff, file, line) at the start of each line the diff adds or keeps."""
    path, line, offset = "", 0, 0
    for text in diff.splitlines(keepends=True):
        hunk = HUNK.match(text)
        if text.startswith("+++ "):
            path = text[4:].rstrip("\n").removeprefix("b/")
        elif hunk:
            line = int(hunk.group(1))
        elif text.startswith(("+", " ")):
            places.append((offset, path, line))
            line += 1
        offset += len(text)
    findings = []
    for secret in find_secrets(diff):
        at = max((p for p in places if p[0] <= secret.start), default=(0, "", 0))
        where = f"the diff of {branch}: {at[1]} line {at[2]}"
        findings.append(Finding(where, secret.kind, secret.shown))
    return findings
