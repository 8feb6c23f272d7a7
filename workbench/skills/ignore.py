"""A skill root's `.gitignore`, honoured as pi honours it: ignored folders are not searched.

The common patterns are understood: blank lines and `#` comments are skipped, `name` matches at
any depth, a leading `/` anchors a pattern at the root, a trailing `/` matches folders only, `*`,
`?` and `**` are globs, and a later `!pattern` takes a folder back. Only folders are matched (a
skill is a folder).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from fnmatch import fnmatchcase

IGNORE_FILE = ".gitignore"


@dataclass(frozen=True)
class _Pattern:
    glob: str
    anchored: bool
    negated: bool


class IgnoreRules:
    """The patterns of one root's `.gitignore` (none when it has no such file)."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.patterns = _read(os.path.join(root, IGNORE_FILE))  # noqa: PTH118

    def ignores(self, folder: str) -> bool:
        """Whether `folder` (below the root) is ignored: the last matching pattern decides."""
        if not self.patterns:
            return False
        relative = os.path.relpath(folder, self.root).replace(os.sep, "/")
        ignored = False
        for pattern in self.patterns:
            if _matches(pattern, relative):
                ignored = not pattern.negated
        return ignored


def _read(path: str) -> list[_Pattern]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return []
    patterns = []
    for line in lines:
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        negated = text.startswith("!")
        text = text.removeprefix("!").rstrip("/")
        anchored = text.startswith("/") or "/" in text
        patterns.append(_Pattern(text.lstrip("/"), anchored, negated))
    return patterns


def _matches(pattern: _Pattern, relative: str) -> bool:
    if pattern.anchored:
        glob = pattern.glob.replace("**/", "*").replace("/**", "/*")
        return fnmatchcase(relative, glob) or fnmatchcase(relative, glob + "/*")
    return any(fnmatchcase(part, pattern.glob) for part in relative.split("/"))
