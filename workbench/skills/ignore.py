"""Ignore files in a skill root, honoured as pi honours them: ignored folders are not searched.

`.gitignore`, `.ignore` and `.fdignore` count, in the root and in every folder searched below
it; a file's patterns apply below its own folder. The common patterns are understood: blank lines
and `#` comments are skipped, `name` matches at any depth, a leading `/` anchors a pattern at the
file's folder, a trailing `/` matches folders only, `*`, `?` and `**` are globs, and a later
`!pattern` takes a folder back. Only folders are matched (a skill is a folder).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from fnmatch import fnmatchcase

IGNORE_FILES = (".gitignore", ".ignore", ".fdignore")


@dataclass(frozen=True)
class _Pattern:
    glob: str
    anchored: bool
    negated: bool
    base: str
    """The folder of the file that holds it, relative to the root ("" for the root's own)."""


class IgnoreRules:
    """The patterns of the ignore files found so far in one root and below it. Discovery adds a
    folder's files as it lists the folder, so a folder without one costs no failed open."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.patterns: list[_Pattern] = []

    def add(self, folder: str, names: tuple[str, ...] | list[str]) -> None:
        """Read the ignore files `names` (those of IGNORE_FILES a folder holds) of `folder`."""
        base = os.path.relpath(folder, self.root).replace(os.sep, "/")
        for name in names:
            self.patterns += _read(os.path.join(folder, name), "" if base == "." else base)  # noqa: PTH118

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


def _read(path: str, base: str) -> list[_Pattern]:
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
        patterns.append(_Pattern(text.lstrip("/"), anchored, negated, base))
    return patterns


def _matches(pattern: _Pattern, relative: str) -> bool:
    if pattern.base:
        if not relative.startswith(pattern.base + "/"):
            return False
        relative = relative[len(pattern.base) + 1 :]
    if pattern.anchored:
        glob = pattern.glob.replace("**/", "*").replace("/**", "/*")
        return fnmatchcase(relative, glob) or fnmatchcase(relative, glob + "/*")
    return any(fnmatchcase(part, pattern.glob) for part in relative.split("/"))
