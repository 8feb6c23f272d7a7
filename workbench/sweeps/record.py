"""What a sweep keeps: its question, variants and runs, and the comparison made from them.

The record is stored as a `sweep` entry on the branch the sweep started from (a new entry each
time the record changes: the newest one of an id is the sweep), so it travels with push and pull
like every other entry. `to_json` is the document `workbench sweep --format json` prints.
"""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from workbench.sweeps.variants import Variant

Outcome = Literal["queued", "running", "done", "failed", "aborted", "timeout"]
FINISHED: tuple[str, ...] = ("done", "failed", "timeout")
"""Outcomes `--resume` keeps; an aborted or queued run is run again."""


@dataclass
class Check:
    passed: bool
    exit_code: int | None
    tail: str


@dataclass
class Tokens:
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write


@dataclass
class Run:
    """One branch of the sweep: a variant's repeat, and what it did."""

    branch: str
    variant: str
    repeat: int
    outcome: Outcome = "queued"
    check: Check | None = None
    tokens: Tokens = field(default_factory=Tokens)
    cost: float | None = None
    seconds: float = 0.0
    turns: int = 0
    tool_calls: int = 0
    skills_loaded: list[str] = field(default_factory=list)
    violations: int = 0
    files_changed: int = 0
    lines_added: int = 0
    lines_removed: int = 0
    error: str | None = None
    tool: str | None = None
    """The tool the run's agent is running now (live only: never recorded)."""

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        del data["tool"]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Run:
        data = dict(data)
        check = data.pop("check", None)
        tokens = data.pop("tokens", None) or {}
        return cls(**data, check=Check(**check) if check else None, tokens=Tokens(**tokens))


@dataclass
class Sweep:
    """One sweep: `sweep-N`, asked from `branch` at `at`, in session `session`."""

    id: str
    session: str
    branch: str
    at: str | None
    prompt: str
    check: str | None
    variants: list[Variant]
    runs: list[Run]
    created: float
    stopped: str | None = None
    """Why runs were stopped before their end (a budget reached, the user's Ctrl+C)."""

    def variant(self, name: str) -> Variant:
        return next(v for v in self.variants if v.name == name)

    def missing(self) -> list[Run]:
        """The runs `--resume` starts again: not finished."""
        return [run for run in self.runs if run.outcome not in FINISHED]

    def to_record(self) -> dict[str, Any]:
        """The payload of its `sweep` entry."""
        return {
            "id": self.id,
            "session": self.session,
            "branch": self.branch,
            "at": self.at,
            "prompt": self.prompt,
            "check": self.check,
            "variants": [v.to_json() for v in self.variants],
            "runs": [r.to_json() for r in self.runs],
            "created": self.created,
            "stopped": self.stopped,
            "summary": self.summary(),  # the comparison, for a reader of the record (an export)
        }

    @classmethod
    def from_record(cls, data: dict[str, Any]) -> Sweep:
        return cls(
            id=str(data["id"]),
            session=str(data["session"]),
            branch=str(data["branch"]),
            at=data.get("at"),
            prompt=str(data.get("prompt", "")),
            check=data.get("check"),
            variants=[Variant.from_json(v) for v in data.get("variants") or []],
            runs=[Run.from_json(r) for r in data.get("runs") or []],
            created=float(data.get("created") or 0.0),
            stopped=data.get("stopped"),
        )

    def to_json(self) -> dict[str, Any]:
        """The comparison, in the schema of `--format json`."""
        runs = []
        for run in self.runs:
            row = run.to_json()
            del row["error"]
            runs.append(row)
        return {"sweep": self.id, "runs": runs, "variants": self.summary()}

    def summary(self) -> list[dict[str, Any]]:
        """One row per variant, best first: pass rate, then mean cost (unknown last), then time."""
        rows = [
            _variant_row(v.name, [r for r in self.runs if r.variant == v.name])
            for v in self.variants
        ]
        return sorted(rows, key=_rank)


def _passed(run: Run) -> bool:
    """A run passes when it finished and its check (if any) exited 0."""
    return run.outcome == "done" and (run.check is None or run.check.passed)


def _mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


def _variant_row(name: str, runs: list[Run]) -> dict[str, Any]:
    ended = [r for r in runs if r.outcome in FINISHED]
    seconds = [r.seconds for r in ended]
    costs = [r.cost for r in ended]
    passed = sum(_passed(r) for r in runs)
    return {
        "name": name,
        "runs": len(runs),
        "passed": passed,
        "pass_rate": passed / len(runs) if runs else 0.0,
        "mean_seconds": _mean(seconds),
        "sd_seconds": statistics.stdev(seconds) if len(seconds) > 1 else 0.0 if seconds else None,
        "mean_cost": None if None in costs else _mean([c for c in costs if c is not None]),
        "mean_tokens": _mean([float(r.tokens.total) for r in ended]),
    }


def _rank(row: dict[str, Any]) -> tuple[float, float, float]:
    unknown = float("inf")
    cost = row["mean_cost"] if row["mean_cost"] is not None else unknown
    seconds = row["mean_seconds"] if row["mean_seconds"] is not None else unknown
    return (-row["pass_rate"], cost, seconds)
