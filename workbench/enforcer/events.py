"""The events the enforcer publishes to front ends (plain dataclasses with a `type`)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class SkillLoadEvent:
    """One skill load and its verdict: `ok`, `violation`, `cycle`, `repeat`, `denied` or
    `unknown`. `how` is read, bash, activate (the model's tool) or command (the user:
    `/skill:<name>` or the runtime's activate); `blocked` means the load was refused; `partial`
    that only part of the file was shown (`head`, `sed -n`, `read` with a `limit`...)."""

    skill: str
    layer: str | None
    standalone: bool
    verdict: str
    reason: str = ""
    suggestion: str = ""
    how: str = "read"
    blocked: bool = False
    partial: bool = False
    type: str = field(default="skill_load", init=False)


@dataclass
class SkillsReloadedEvent:
    """The skill set changed on disk and was loaded again; the topology in the prompt follows."""

    skills: int
    diagnostics: int
    type: str = field(default="skills_reloaded", init=False)
