"""A cache of parsed SKILL.md files, so that a second lint of an unchanged tree skips parsing.

Keyed on path, size and modification time. One file per set of skill roots, under
`$XDG_CACHE_HOME/workbench` (or `~/.cache/workbench`), never inside the folders being linted
(they may be read-only). The cache is an optimisation only: a file that is missing, corrupt, from
another version or unwritable is treated as empty, and the skills are parsed again.
"""

from __future__ import annotations

import gc
import os
import pickle
import zlib
from collections.abc import Sequence
from pathlib import Path

from workbench import __version__
from workbench.skills.model import Diagnostic, Skill

FORMAT = 5
"""Bump when the parser's output changes, so that old entries are not reused."""

ParseResult = tuple[Skill | None, list[Diagnostic]]
_Entry = tuple[int, int, Skill | None, list[Diagnostic]]


def cache_dir() -> Path:
    """Where workbench keeps caches: `$XDG_CACHE_HOME/workbench` or `~/.cache/workbench`."""
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "workbench"


class ParseCache:
    """Parsed skills by path, valid while the file's size and mtime are unchanged."""

    def __init__(self, file: Path | None) -> None:
        self.file = file
        self._old: dict[str, _Entry] = self._read() if file else {}
        self._new: dict[str, _Entry] = {}
        self._changed = False

    @classmethod
    def for_roots(cls, roots: Sequence[str]) -> ParseCache:
        """The cache of one set of skill roots (absolute paths, in order)."""
        # Entries are keyed by absolute path, so two root sets sharing a file is harmless.
        digest = zlib.crc32("\0".join(roots).encode("utf-8", "surrogateescape"))
        return cls(cache_dir() / f"skills-{digest:08x}.pickle")

    def _read(self) -> dict[str, _Entry]:
        assert self.file is not None
        collecting = gc.isenabled()
        gc.disable()  # unpickling creates many objects that all stay alive: no cycles to find
        try:
            with open(self.file, "rb") as file:
                header, entries = pickle.load(file)
        # A cache can be truncated, from another version or hand-edited; unpickling it can fail
        # with nearly any exception type. Every such failure means "no cache".
        except Exception:
            return {}
        finally:
            if collecting:
                gc.enable()
        if header != (FORMAT, __version__) or not isinstance(entries, dict):
            return {}
        return entries

    def get(self, path: str, size: int, mtime_ns: int) -> ParseResult | None:
        """The cached parse of `path`, if the file still has this size and mtime."""
        entry = self._old.get(path)
        if entry is None or entry[0] != size or entry[1] != mtime_ns:
            return None
        self._new[path] = entry
        return entry[2], entry[3]

    def put(self, path: str, size: int, mtime_ns: int, result: ParseResult) -> None:
        self._new[path] = (size, mtime_ns, result[0], result[1])
        self._changed = True

    def save(self) -> None:
        """Write the entries used in this run, if anything changed; failures are ignored."""
        if self.file is None or not (self._changed or len(self._new) != len(self._old)):
            return
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            temp = self.file.with_name(f".{self.file.name}.{os.getpid()}")
            try:
                with temp.open("wb") as file:
                    pickle.dump(((FORMAT, __version__), self._new), file, pickle.HIGHEST_PROTOCOL)
                temp.replace(self.file)
            except BaseException:
                temp.unlink(missing_ok=True)
                raise
        # A read-only or full cache folder, or a frontmatter too deeply nested to pickle, only
        # costs speed on the next run.
        except (OSError, pickle.PicklingError, RecursionError):
            return
