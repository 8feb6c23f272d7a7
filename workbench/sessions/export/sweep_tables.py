"""A sweep recorded on the exported branch, as the tables an export shows: its runs, then its
variants best first.

The `sweep` entry carries its comparison (`summary`, ordered best first when it was recorded),
so the export only lays out what the record says. A sweep is recorded again each time it changes
(started, ended, resumed); only its newest record on the branch is shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workbench.agent.store import Entry

RUN_HEADER = ["run", "outcome", "check", "tokens in", "tokens out", "cost", "seconds", "files"]
VARIANT_HEADER = ["variant", "passed", "rate", "mean seconds", "mean cost", "mean tokens"]


@dataclass
class SweepTable:
    title: str
    runs: list[list[str]]
    variants: list[list[str]]
    stopped: str | None


def newest_records(entries: list[Entry]) -> set[str]:
    """The ids of the entries that hold the newest record of each sweep on the branch."""
    newest: dict[str, str] = {}
    for entry in entries:
        if entry.type == "sweep":
            newest[str(entry.payload.get("id"))] = entry.id
    return set(newest.values())


def _cost(value: Any) -> str:
    return "?" if value is None else f"${float(value):.4f}"


def _number(value: Any, unit: str = "") -> str:
    return "?" if value is None else f"{float(value):.1f}{unit}"


def _check(run: dict[str, Any]) -> str:
    check = run.get("check")
    if not check:
        return "-"
    return "✓ pass" if check.get("passed") else f"✗ fail ({check.get('exit_code')})"


def _run_row(run: dict[str, Any]) -> list[str]:
    tokens = run.get("tokens") or {}
    return [
        str(run.get("branch")),
        str(run.get("outcome")),
        _check(run),
        str(tokens.get("input", 0)),
        str(tokens.get("output", 0)),
        _cost(run.get("cost")),
        _number(run.get("seconds")),
        f"{run.get('files_changed', 0)} +{run.get('lines_added', 0)} "
        f"-{run.get('lines_removed', 0)}",
    ]


def _variant_row(row: dict[str, Any]) -> list[str]:
    return [
        str(row.get("name")),
        f"{row.get('passed')}/{row.get('runs')}",
        f"{float(row.get('pass_rate') or 0):.0%}",
        _number(row.get("mean_seconds"), "s"),
        _cost(row.get("mean_cost")),
        _number(row.get("mean_tokens")),
    ]


def sweep_table(payload: dict[str, Any]) -> SweepTable:
    title = f"{payload.get('id')}: {str(payload.get('prompt') or '').strip()}"
    return SweepTable(
        title,
        [_run_row(run) for run in payload.get("runs") or []],
        [_variant_row(row) for row in payload.get("summary") or []],
        payload.get("stopped"),
    )
