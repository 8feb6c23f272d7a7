"""The skill set as one session's enforcer reads it, kept current.

From the live skill set, the allowlist, the prompt budget and the folder skill files are named
relative to, it builds the checker every load goes through and the skills section of the system
prompt; it builds them again when the skill set changes on disk, the session moves to another
folder (a fork's worktree) or the model is offered other tools.

The skill set is checked for changes on disk before each run, and also before the next model call
after a tool that may have written a SKILL.md (a `write` or `edit` of one, `bash`, any tool not
known to leave files alone): a skill the model writes in one turn is checked when it reads it in
the next. The check is a stat of the watched files; calls that change nothing skip it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from workbench.config import Settings
from workbench.enforcer.allowlist import Allowlist, close_matches
from workbench.enforcer.guidance import guidance
from workbench.enforcer.locations import location
from workbench.enforcer.reload import LiveSkills
from workbench.enforcer.settings import budget_of, catalog_of
from workbench.enforcer.topology import Hints, render, render_flat
from workbench.enforcer.verdict import Checker
from workbench.hooks import ToolResultEvent
from workbench.skills.model import Skill

ACTIVATION_TOOLS = frozenset({"skill_activate", "skill_deactivate"})
QUERY_TOOL = "prime_query"
SKILL_TOOLS = ACTIVATION_TOOLS | {QUERY_TOOL}
"""The enforcer's own tools."""
SKILL_NAME = re.compile(r"[\w.-]+")


def _may_change_skills(event: ToolResultEvent) -> bool:
    """Whether a finished tool call may have changed a SKILL.md: a `write` or `edit` of a file
    named so (through symlinks), and any tool that is not known to leave files alone
    (`Tool.changes_files`)."""
    if event.tool_name in ("write", "edit"):
        path = event.args.get("path")
        if not isinstance(path, str):
            return True
        real = os.path.realpath(event.cwd / Path(path).expanduser())
        return Path(real).name.lower() == "skill.md"
    return event.changes_files


class SkillView:
    """The checker and the prompt section of one session's skill set, and how files are named.

    `maybe_changed` is set after a tool call that may have changed a SKILL.md, until the next
    `refresh`.
    """

    def __init__(self, skills: LiveSkills, settings: Settings, base: Path | None = None) -> None:
        self.skills = skills
        self.budget = budget_of(settings)
        self.allowlist = Allowlist.from_settings(settings)
        self.render = render_flat if catalog_of(settings) == "flat" else render
        self.base = base
        self.maybe_changed = False
        self._hints = Hints()  # every tool, until a run says which the model has
        self._where: dict[Path, str] = {}
        self._sections: dict[Hints, str] = {}
        self._rebuild()

    def _rebuild(self) -> None:
        graph = self.skills.graph
        self._where.clear()  # the folder or the skills' paths may have changed
        self._sections.clear()
        self.checker = Checker(graph, self.where, self.allowlist.allows)
        self.useful_tools = self._useful_tools()

    @property
    def prompt_section(self) -> str:
        """The skills section for the tools the model is offered (`offer_tools`)."""
        return self._section(self._hints)

    def _section(self, hints: Hints) -> str:
        """The section worded for `hints`, rendered once per skill set and wording: the check
        of which tools are useful renders the wording a set listed in full is offered with."""
        section = self._sections.get(hints)
        if section is None:
            section = self.render(self.skills.graph, self.where, self.allowlist, self.budget, hints)
            self._sections[hints] = section
        return section

    def _useful_tools(self) -> frozenset[str]:
        """The enforcer's tools worth offering for this skill set, decided once per skill set
        (so the prompt stays byte-stable across turns): activation when there is a skill to
        activate, `prime_query` when the prompt's skills section cannot list every skill."""
        allowed = [
            name
            for name, skill in self.skills.graph.skills.items()
            if self.allowlist.allows(name) and skill.offered_to_model
        ]
        if not allowed:
            return frozenset()
        section = self._section(Hints(activate=True, query=False))
        listed = set(SKILL_NAME.findall(section))
        complete = all(name in listed for name in allowed)
        return ACTIVATION_TOOLS if complete else ACTIVATION_TOOLS | {QUERY_TOOL}

    def where(self, skill: Skill) -> str:
        """`locations.location`, remembered per skill file until the next rebuild (the two
        renders and every guidance line ask again)."""
        named = self._where.get(skill.path)
        if named is None:
            named = self._where[skill.path] = location(skill, self.base)
        return named

    def guidance_for(self, skill: Skill, via: str | None) -> str:
        return guidance(self.skills.graph, skill, via, self.where, self.allowlist.allows)

    def similar(self, name: str) -> list[str]:
        """Allowed skills whose names are like `name`, for a refused or unknown one."""
        allowed = [n for n in self.skills.graph.skills if self.allowlist.allows(n)]
        return close_matches(name, allowed)

    def move_to(self, base: Path) -> None:
        """Follow the session to another working folder (a fork's worktree): skill files are
        named relative to it, and the skill set is discovered again, since the session's loader
        now reads that folder (its copies of the skills have other absolute paths)."""
        self.base = base
        self.skills.reload()
        self._rebuild()

    def refresh(self) -> bool:
        """Reload the skill set if its files changed; True when it did."""
        self.maybe_changed = False
        if not self.skills.changed():
            return False
        self._rebuild()
        return True

    def note_tool_result(self, event: ToolResultEvent) -> None:
        """Remember a finished tool call that may have changed a SKILL.md."""
        if _may_change_skills(event):
            self.maybe_changed = True

    def offer_tools(self, tools: Iterable[str]) -> None:
        """Word the prompt section for the tools the model is offered."""
        self._hints = Hints.for_tools(tools)  # the first run, or tools came (trust) or went
