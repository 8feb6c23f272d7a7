"""How a skill's file is named to the model: short where that is safe, absolute otherwise."""

from __future__ import annotations

from pathlib import Path

from workbench.skills.model import Skill


def location(skill: Skill, base: Path | None) -> str:
    """The skill's SKILL.md relative to `base` (the session's working folder) when it lies under
    it, else its absolute path; the read tool resolves both."""
    path = skill.path
    if base is not None:
        try:
            return str(path.relative_to(base))
        except ValueError:
            pass
    return str(path)
