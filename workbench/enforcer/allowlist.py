"""Which skills this project lets the agent use: `skills.allow` and `skills.deny` glob patterns.

The configuration is an allowlist (seed 004): a skill is usable when its name matches an `allow`
pattern (default `*`) and no `deny` pattern. Deny wins. The allowlist is a boundary set apart from
`enforcer.mode`: a denied skill can be neither activated nor read, in every mode.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase

from workbench.config import Settings
from workbench.errors import WorkbenchError


def _patterns(settings: Settings, key: str, default: list[str]) -> tuple[str, ...]:
    value = settings.get(key, default)
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(p, str) for p in value):
        raise WorkbenchError(
            f"settings: {key} must be a list of glob patterns, not {value!r}",
            f'write it as "{key.split(".")[-1]}": ["pattern", ...] under "skills"',
        )
    return tuple(value)


@dataclass(frozen=True)
class Allowlist:
    """`allow` and `deny` name patterns (shell globs, case-sensitive as skill names are)."""

    allow: tuple[str, ...] = ("*",)
    deny: tuple[str, ...] = ()

    @classmethod
    def from_settings(cls, settings: Settings) -> Allowlist:
        return cls(
            allow=_patterns(settings, "skills.allow", ["*"]),
            deny=_patterns(settings, "skills.deny", []),
        )

    @property
    def permits_everything(self) -> bool:
        return "*" in self.allow and not self.deny

    def refusal(self, name: str) -> str | None:
        """Why `name` is not allowed, or None when it is."""
        for pattern in self.deny:
            if fnmatchcase(name, pattern):
                return f"the project's settings deny it (`skills.deny` pattern `{pattern}`)"
        if not any(fnmatchcase(name, pattern) for pattern in self.allow):
            return "no `skills.allow` pattern in the project's settings matches it"
        return None

    def allows(self, name: str) -> bool:
        return self.permits_everything or self.refusal(name) is None


def close_matches(name: str, candidates: Iterable[str], limit: int = 5) -> list[str]:
    """Names like `name` (difflib ratio, then a plain substring match), best first."""
    pool = list(candidates)
    found = difflib.get_close_matches(name, pool, n=limit, cutoff=0.6)
    if len(found) < limit and len(name) >= 3:
        lowered = name.lower()
        found += sorted(c for c in pool if lowered in c.lower() and c not in found)
    return found[:limit]
