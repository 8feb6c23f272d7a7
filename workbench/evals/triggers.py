"""Trigger tests: does the skill's description make the model load it when it should, and only
then? Each query of `evals/triggers.json` runs (without the case files) and its uptake says
whether the skill was loaded; precision and recall of the description follow."""

from __future__ import annotations

from typing import Any

from workbench.evals.results import EvalRun
from workbench.skills.evals_file import Trigger


def trigger_summary(queried: list[tuple[Trigger, EvalRun]]) -> dict[str, Any]:
    """Per query: its runs and how many loaded the skill; over all runs: precision (of the
    loads, the share that should have happened) and recall (of the runs that should load it,
    the share that did). None where nothing was there to divide."""
    rows: dict[str, dict[str, Any]] = {}
    hits = false_alarms = misses = 0
    for trigger, run in queried:
        row = rows.setdefault(
            trigger.query,
            {"query": trigger.query, "should_trigger": trigger.should_trigger, "runs": 0},
        )
        row["runs"] += 1
        row["loaded"] = row.get("loaded", 0) + run.uptake.loaded
        if run.uptake.loaded and trigger.should_trigger:
            hits += 1
        elif run.uptake.loaded:
            false_alarms += 1
        elif trigger.should_trigger:
            misses += 1
    return {
        "queries": list(rows.values()),
        "precision": hits / (hits + false_alarms) if hits + false_alarms else None,
        "recall": hits / (hits + misses) if hits + misses else None,
    }
