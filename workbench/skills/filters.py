"""Settings entries that choose among the skills found, as pi reads them.

`!glob` leaves out every skill it matches, `+path` brings one back, `-path` leaves one out
whatever else matched. A glob is matched against the SKILL.md and against its folder: the path
relative to the folder of the settings file that wrote it (`.pi/` or `~/.pi/agent/`), the name,
and the absolute path; `**` crosses folders, `*` and `?` do not. A `+` or `-` path names one
skill exactly, the same ways but the name. So `-skills/old` in `~/.pi/agent/settings.json` leaves
out `~/.pi/agent/skills/old`, and `!draft-*` every skill whose folder starts with `draft-`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from functools import lru_cache

from workbench.config import SkillFilter


@lru_cache(maxsize=256)
def _glob(pattern: str) -> re.Pattern[str]:
    """A glob as a regex: `**` any text, `*` and `?` within one folder name, `[...]` a class."""
    out, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and "]" in pattern[i + 2 :]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1 : end]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = end
        else:
            out.append(re.escape(char))
        i += 1
    return re.compile("".join(out))


def _exact(pattern: str) -> str:
    return pattern.removeprefix("./").rstrip("/")


def enabled(skill_file: str, filters: Sequence[SkillFilter]) -> bool:
    """Whether the skill whose SKILL.md is at `skill_file` (absolute) survives `filters`."""
    folder = os.path.dirname(skill_file)  # noqa: PTH120 - strings, once per skill
    keep = True
    for wanted in ("!", "+", "-"):
        for rule in filters:
            if rule.mark != wanted:
                continue
            base = str(rule.base)
            places = [
                skill_file,
                folder,
                os.path.relpath(skill_file, base),
                os.path.relpath(folder, base),
            ]
            if wanted == "!":
                glob = _glob(rule.pattern.removeprefix("./"))
                names = (os.path.basename(folder), os.path.basename(skill_file))  # noqa: PTH119
                if any(glob.fullmatch(place) for place in (*places, *names)):
                    keep = False
            elif _exact(rule.pattern) in places:
                keep = wanted == "+"
    return keep
