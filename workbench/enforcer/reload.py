"""The current skill set, loaded again when its files change on disk.

Before each run the enforcer asks `changed()`: a stat of every known SKILL.md and of the folders
that hold skill folders (a new or removed skill folder changes its parent's modification time).
Only when something changed is the set loaded again, with its lint findings; the topology in the
system prompt follows, and so the prompt changes only then.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from workbench.skills.graph import SkillGraph
from workbench.skills.model import Diagnostic

Loader = Callable[[], SkillGraph]
Linter = Callable[[SkillGraph], list[Diagnostic]]
Fingerprint = tuple[tuple[str, int, int], ...]


def _stat(path: str) -> tuple[str, int, int]:
    try:
        info = Path(path).stat()
    except OSError:
        return (path, -1, -1)
    return (path, info.st_mtime_ns, info.st_size)


class SkillSet:
    """A graph with its lint findings, and the means to notice that its files changed."""

    def __init__(
        self,
        load: Loader,
        lint: Linter | None = None,
        roots: Iterable[Path] = (),
    ) -> None:
        self._load = load
        self._lint = lint
        self._roots = tuple(str(r) for r in roots)
        self.graph = SkillGraph(())
        self.diagnostics: list[Diagnostic] = []
        self._fingerprint: Fingerprint = ()
        self.reload()

    def _watched(self) -> list[str]:
        files = [str(s.path) for s in self.graph.skills.values()]
        folders = {str(s.folder.parent) for s in self.graph.skills.values()}
        return sorted({*files, *folders, *self._roots})

    def fingerprint(self) -> Fingerprint:
        """The modification time and size of every watched file and folder."""
        return tuple(_stat(path) for path in self._watched())

    def reload(self) -> None:
        """Load the skill set (and lint it) now."""
        self.graph = self._load()
        self.diagnostics = self._lint(self.graph) if self._lint else []
        self._fingerprint = self.fingerprint()

    def changed(self) -> bool:
        """Reload when a watched file or folder changed; True when it did."""
        if self.fingerprint() == self._fingerprint:
            return False
        self.reload()
        return True
