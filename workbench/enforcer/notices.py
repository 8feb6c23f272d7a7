"""What the model is told about a load that is not simply ok: a notice, or a refusal.

A notice rides along with a load that went ahead (`warn`); a refusal is the error result of a load
that did not happen (`block`, or a skill the allowlist denies).
"""

from __future__ import annotations

from workbench.enforcer.state import LoadRecord

TITLES = {
    "violation": "Skill loading violation",
    "cycle": "Skill loading cycle",
    "repeat": "Repeated skill load",
    "denied": "Skill not allowed",
    "unknown": "Unknown skill",
}


def notice_text(record: LoadRecord) -> str:
    """What the model is told about a load that is not simply ok."""
    return f"[skill graph] {TITLES[record.verdict]}: {record.reason}\n{record.suggestion}"


def stopped_text(record: LoadRecord) -> str:
    """The result of a call skipped because a violation stopped the rest of its reply."""
    return (
        "Skipped: the skill-graph enforcer stopped this reply after a skill loading violation "
        f"({record.reason.rstrip('.')}). Read the notice, then make this call again if it is "
        "still needed."
    )


def refusal_text(record: LoadRecord) -> str:
    """The error result of a refused load."""
    return f"Refused by the skill graph enforcer. {record.reason}\n{record.suggestion}"
