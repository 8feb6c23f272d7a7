"""Keeping keys out of what we share: credentials in entries and files before a push or an
export (`find_secrets`, `redact_secrets` on text; `find_in_value`, `redact_value` on decoded
JSON, field by field). A lock file's command line hides its secret flags itself
(`sessions/store/lock.py`): every session's opening writes one, and compiling the patterns below
would cost it ~5 ms."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

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
IDENTIFIER_SHAPE = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
    r"|[0-9a-f]{40}|[0-9a-f]{64}"
)
"""A UUID, or a SHA-1 or SHA-256 digest in hex (a git commit, a content hash)."""
IDENTIFIER_NAMES = re.compile(
    r"sha|commit|digest|hash|checksum|idempotency|cache|uuid|etag|revision|request|trace"
    r"|primary|partition|sort|foreign",
    re.IGNORECASE,
)
"""Names whose value identifies something (`cache_key`, `idempotency_key`, `commit_sha`): an
identifier-shaped value after one is not a secret. An `api_key` of the same shape still is."""
_NAME_HEAD = re.compile(r"[A-Za-z0-9_.-]*$")
SHORTEST_SECRET = 15
"""No format above fits in fewer characters (a Slack token): shorter strings are not read."""


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


def _identifier(text: str, match: re.Match[str]) -> bool:
    """An identifier-shaped value after an identifier's name (`idempotency_key: <uuid>`)."""
    if not IDENTIFIER_SHAPE.fullmatch(match.group("value")):
        return False
    head = _NAME_HEAD.search(text, max(0, match.start() - 64), match.start())
    name = (head.group() if head else "") + match.group("name")
    return IDENTIFIER_NAMES.search(name) is not None


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
        if _looks_random(value) and not _identifier(text, match):
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
    return _replaced(text, find_secrets(text))


def _replaced(text: str, matches: list[SecretMatch]) -> str:
    parts, last = [], 0
    for match in matches:
        parts += [text[last : match.start], f"[REDACTED {match.kind}]"]
        last = match.end
    return "".join(parts) + text[last:]


# --- credentials in decoded JSON values: what entries and descriptions store ------------------


@dataclass(frozen=True)
class FieldSecret:
    """A credential in one string of a JSON value: which field, which line of it."""

    field: str
    """`text`, `tool_calls[0].arguments.command`, `details.reports[0].answer`."""
    line: int
    match: SecretMatch


def _value_secrets(text: str, name: str) -> list[SecretMatch]:
    """Credentials in a string stored under `name`: read as `name: text`, so that
    `{"password": "..."}` is the assignment it is; positions are the string's own."""
    if len(text) < SHORTEST_SECRET:
        return []
    if not name:
        return find_secrets(text)
    offset = len(name) + 2
    found = find_secrets(f"{name}: {text}")
    return [
        SecretMatch(m.kind, m.start - offset, m.end - offset, m.shown)
        for m in found
        if m.start >= offset
    ]


def _walk(value: Any, path: str, name: str, visit: Callable[[str, str, str], str]) -> Any:
    """`value` with each string (keys too) replaced by `visit(string, field, name)`."""
    if isinstance(value, str):
        return visit(value, path, name)
    if isinstance(value, list):
        return [_walk(item, f"{path}[{n}]", name, visit) for n, item in enumerate(value)]
    if isinstance(value, dict):
        walked = {}
        for key, item in value.items():
            field = f"{path}.{key}" if path else str(key)
            new_key = visit(key, field, "") if isinstance(key, str) else key
            walked[new_key] = _walk(item, field, str(key), visit)
        return walked
    return value


def find_in_value(value: Any, field: str = "") -> list[FieldSecret]:
    """Every credential in the strings of a decoded JSON value, by field and line."""
    found: list[FieldSecret] = []

    def visit(text: str, path: str, name: str) -> str:
        for match in _value_secrets(text, name):
            found.append(FieldSecret(path, text.count("\n", 0, match.start) + 1, match))
        return text

    _walk(value, field, "", visit)
    return found


def redact_value(value: Any) -> tuple[Any, int]:
    """A copy of a decoded JSON value with every credential replaced, and how many were."""
    count = 0

    def visit(text: str, path: str, name: str) -> str:
        nonlocal count
        matches = _value_secrets(text, name)
        count += len(matches)
        return _replaced(text, matches)

    return _walk(value, "", "", visit), count
