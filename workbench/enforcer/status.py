"""The `/skill-graph-status` text (and `workbench skills status`): a view of a loading state."""

from __future__ import annotations

import time

from workbench.enforcer.state import LoadingState, LoadRecord
from workbench.text import count_of

LAST_LOADS = 5
_LAYERS = ("compound", "molecule", "atom", None)


def _clock(moment: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(moment))


def _outcome(record: LoadRecord) -> str:
    outcome = record.verdict
    if record.via:
        outcome += f" (via {record.via})"
    if record.blocked:
        outcome += ", refused"
    return outcome


def _line(record: LoadRecord) -> str:
    partial = ["partial"] if record.partial else []
    kind = ", ".join([record.layer or "unlayered", record.how, *partial])
    return f"  {_clock(record.time)}  {record.skill}  [{kind}]  {_outcome(record)}"


def format_status(state: LoadingState, mode: str = "warn") -> str:
    """Active compound, loaded skills per layer, the last loads and every violation or notice."""
    lines = [f"Skill graph status (enforcer mode: {mode})"]
    lines.append(f"Active compound: {state.active_compound or 'none'}")
    if state.chain:
        lines.append("Delegation chain: " + " → ".join(state.chain))
    lines.append(f"Loaded skills ({len(state.loaded)}):")
    if not state.loaded:
        lines.append("  none yet")
    for layer in _LAYERS:
        names = sorted(name for name, of in state.loaded.items() if of == layer)
        if names:
            lines.append(f"  {layer or 'unlayered'}: {', '.join(names)}")
    if state.activated:
        lines.append("Activated: " + ", ".join(sorted(state.activated)))
    recent = state.history[-LAST_LOADS:]
    lines.append(f"Last {count_of(len(recent), 'load')}:" if recent else "Last loads: none")
    lines.extend(_line(record) for record in recent)
    flagged = state.violations
    lines.append(f"Violations and notices ({len(flagged)}):" if flagged else "Violations: none")
    for record in flagged:
        lines.append(_line(record))
        if record.reason:
            lines.append(f"    {record.reason}")
        if record.suggestion:
            lines.append(f"    next: {record.suggestion}")
    return "\n".join(lines)
