"""The session's skill set, loaded again when its files change on disk.

Before each run the enforcer asks `changed()`: a stat of every known SKILL.md, of the folders that
hold skill folders (a new or removed skill folder changes its parent's modification time) and of
the searched roots. Only when something changed is the set discovered again (the parse cache makes
that cheap); the topology in the system prompt follows, so the prompt changes only then. The lint
findings are made when first asked for: a run that never shows them (`-p`) never pays for them
(a second at 5,000 skills, most of it looking for each skill's evals files).
A new skill in a folder that held none before is seen when that folder is a searched root or the
parent of another skill.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from workbench.skills.discover import SkillSet
from workbench.skills.graph import SkillGraph
from workbench.skills.lint import lint
from workbench.skills.model import Diagnostic

Loader = Callable[[], SkillSet]
"""Discovers the skill set afresh, e.g. `lambda: load_project_skills(project_root)`."""
Fingerprint = tuple[tuple[str, int, int], ...]


def _stat(path: str) -> tuple[str, int, int]:
    try:
        info = os.stat(path)  # noqa: PTH116 - a hot loop over plain strings, once per run
    except OSError:
        return (path, -1, -1)
    return (path, info.st_mtime_ns, info.st_size)


class LiveSkills:
    """The current skill set with its lint findings, and the means to notice a change."""

    def __init__(self, load: Loader) -> None:
        self._load = load
        self.skill_set = SkillSet(SkillGraph(()), [], 0, ())
        self.graph = self.skill_set.graph
        self._diagnostics: list[Diagnostic] | None = None
        self._watched: list[str] = []
        self._fingerprint: Fingerprint = ()
        self.reload()

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """The lint findings of the current skill set (made at the first ask after a load)."""
        if self._diagnostics is None:
            self._diagnostics = lint(self.skill_set)
        return self._diagnostics

    def fingerprint(self) -> Fingerprint:
        """The modification time and size of every watched file and folder."""
        return tuple(_stat(path) for path in self._watched)

    def reload(self) -> None:
        """Discover the skill set now (its lint findings wait until asked for)."""
        skill_set = self._load()
        self.skill_set = skill_set
        self.graph = skill_set.graph
        self._diagnostics = None
        skills = self.graph.skills.values()
        watched = {str(s.path) for s in skills} | {str(s.folder.parent) for s in skills}
        watched |= {str(root.path.absolute()) for root in skill_set.roots}
        self._watched = sorted(watched)
        self._fingerprint = self.fingerprint()

    def changed(self) -> bool:
        """Reload when a watched file or folder changed; True when it did."""
        if self.fingerprint() == self._fingerprint:
            return False
        self.reload()
        return True
