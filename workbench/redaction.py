"""Keeping keys out of what we record and share: command lines in lock files, errors and
notices; credentials in entries and files before a push (`find_secrets`, `redact_secrets`)."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

SECRET_FLAGS = ("--api-key",)
"""Flags whose value is a secret."""
HIDDEN = "***"


def redacted_argv(argv: Sequence[str]) -> list[str]:
    """`argv` with the value of every secret flag replaced (`--api-key X`, `--api-key=X`)."""
    shown: list[str] = []
    hide_next = False
    for arg in argv:
        if hide_next:
            shown.append(HIDDEN)
            hide_next = False
        elif arg in SECRET_FLAGS:
            shown.append(arg)
            hide_next = True
        elif arg.startswith(tuple(f"{flag}=" for flag in SECRET_FLAGS)):
            shown.append(f"{arg.partition('=')[0]}={HIDDEN}")
        else:
            shown.append(arg)
    return shown


# --- credentials in text: the one place for their patterns -----------------------------------

_KEY_WORDS = ("key", "token", "secret", "password", "passwd", "credential")
_KEY_NAME = "(?:{})[A-Za-z0-9_]*".format(
    "|".join(form for word in _KEY_WORDS for form in (word, word.upper(), word.capitalize()))
)
"""The end of a name that holds a secret (`API_KEY`, `apiKey`, `db_password`): written out in
its three usual cases, because a case-blind search is seven times slower on a long session."""
SECRET_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "private key block",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?"
            r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
            re.DOTALL,
        ),
    ),
    ("Anthropic key", re.compile(r"sk-ant-[A-Za-z0-9_-]{20,}")),
    ("OpenAI key", re.compile(r"sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}")),
    ("AWS access key", re.compile(r"(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("GitHub token", re.compile(r"(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})")),
    ("Slack token", re.compile(r"xox[baprs]-[A-Za-z0-9-]{10,}")),
)
"""Known credential formats, each named for the message that reports it. Each must start a word
(checked in `find_secrets`: a leading `\b` would make every search scan character by character)."""
ASSIGNMENT = re.compile(
    rf"(?P<name>{_KEY_NAME})(?P<sep>\\?[\"']?\s*[:=]\s*\\?[\"']?)"
    r"(?P<value>[A-Za-z0-9+/_\-.=]{20,})"
)
"""`API_KEY=...`, `"token": "..."`, also inside JSON-escaped text (`\\"`)."""
_WORD = re.compile(r"[A-Za-z0-9_]")
MIN_ENTROPY_BITS = 3.5
"""Bits per character above which a long value looks random, not like a word or a path."""


@dataclass(frozen=True)
class SecretMatch:
    """One credential found in a text: its kind, where, and a shown form that hides it."""

    kind: str
    start: int
    end: int
    shown: str


def _entropy(value: str) -> float:
    counts = {c: value.count(c) for c in set(value)}
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def _looks_random(value: str) -> bool:
    has_digit = any(c.isdigit() for c in value)
    has_letter = any(c.isalpha() for c in value)
    return has_digit and has_letter and _entropy(value) >= MIN_ENTROPY_BITS


def _shown(secret: str) -> str:
    return f"{secret[:6]}…{secret[-2:]}" if len(secret) > 12 else "…"


def find_secrets(text: str) -> list[SecretMatch]:
    """Every credential in `text`, by position (overlaps keep the first, longest match)."""
    found: list[SecretMatch] = []
    for kind, pattern in SECRET_PATTERNS:
        for match in pattern.finditer(text):
            if match.start() and _WORD.match(text, match.start() - 1):
                continue  # inside a longer word
            found.append(SecretMatch(kind, match.start(), match.end(), _shown(match.group())))
    for match in ASSIGNMENT.finditer(text):
        value = match.group("value")
        if _looks_random(value):
            start = match.start("value")
            found.append(SecretMatch("secret assignment", start, match.end(), _shown(value)))
    found.sort(key=lambda m: (m.start, -m.end))
    kept: list[SecretMatch] = []
    for secret in found:
        if not kept or secret.start >= kept[-1].end:
            kept.append(secret)
    return kept


def redact_secrets(text: str) -> str:
    """`text` with every credential replaced by `[REDACTED <kind>]`."""
    parts, last = [], 0
    for match in find_secrets(text):
        parts += [text[last : match.start], f"[REDACTED {match.kind}]"]
        last = match.end
    return "".join(parts) + text[last:]
