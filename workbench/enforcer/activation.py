"""What the model receives when a skill is activated (by `skill_activate` or `/skill:<name>`).

The skill's body goes into a message (the tool result, or the user's message for `/skill:`),
never into the system prompt, so the prompt cache survives activation (seed 004: the configuration
is an allowlist, the injection is just in time). An activated skill's `allowed-tools` is compared
with the session's tools, and the ones the session lacks are named.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from xml.sax.saxutils import quoteattr

from workbench.output_limits import MAX_BYTES, MAX_LINES, head
from workbench.skills.model import Skill

_TOOL_NAME = re.compile(r"([A-Za-z_][\w.-]*)(?:\([^)]*\))?")


def required_tools(skill: Skill) -> list[str]:
    """The tool names in `allowed-tools` (top level or under `metadata`): a space- or
    comma-separated string or a list, with arguments like `Bash(git:*)` reduced to `Bash`."""
    raw = skill.frontmatter.get("allowed-tools")
    metadata = skill.frontmatter.get("metadata")
    if raw is None and isinstance(metadata, dict):
        raw = metadata.get("allowed-tools")
    if isinstance(raw, list):
        raw = " ".join(str(item) for item in raw)
    if not isinstance(raw, str):
        return []
    return list(dict.fromkeys(m.group(1) for m in _TOOL_NAME.finditer(raw)))


def missing_tools(skill: Skill, session_tools: Iterable[str]) -> list[str]:
    """The tools `skill` names that the session does not have (compared without case)."""
    have = {name.lower() for name in session_tools}
    return [name for name in required_tools(skill) if name.lower() not in have]


def missing_tools_note(skill: Skill, session_tools: Iterable[str]) -> str:
    """A line telling the model which expected tools are missing; empty when none are."""
    missing = missing_tools(skill, session_tools)
    if not missing:
        return ""
    return (
        f"Note: `{skill.name}` expects tools this session does not have: {', '.join(missing)}. "
        "Do those steps with the tools you have, or tell the user what is missing."
    )


def skill_message(skill: Skill, location: str) -> str:
    """The skill's body wrapped so the model knows where it came from; a body longer than a
    tool result may be is cut like `read` cuts a file, with where to read the rest."""
    lines = skill.body.strip().split("\n")
    window = head(lines)
    body = "\n".join(window.lines)
    if window.truncated:
        body += (
            f"\n\n[Cut at {len(window.lines)} of {len(lines)} lines "
            f"({MAX_LINES} lines or {MAX_BYTES // 1024} KB at most). Read the rest with "
            f"read {location} and an offset.]"
        )
    return f"<skill name={quoteattr(skill.name)} location={quoteattr(location)}>\n{body}\n</skill>"
