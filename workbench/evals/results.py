"""What an eval found: one record per run, and per configuration the means with their spread,
the deltas against `with_skill`, and a verdict in plain words.

`to_json` is the document `workbench eval --format json` prints (the issue's schema, exactly);
`benchmark` adds the full statistics and the deltas for `benchmark.json` and the HTML report.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Any

from workbench.evals.grading import Graded
from workbench.evals.uptake import Uptake
from workbench.sweeps.record import Tokens

MIN_RUNS = 3
"""Fewer runs than this on either side of a delta are too few to tell anything."""
MEASURES = ("pass_rate", "assertions", "seconds", "tokens", "cost", "turns", "tool_calls")


@dataclass
class EvalRun:
    """One run of one case under one configuration, graded."""

    case: str
    configuration: str
    repeat: int
    branch: str
    outcome: str
    passed: bool = False
    graded: list[Graded] = field(default_factory=list)
    seconds: float = 0.0
    tokens: Tokens = field(default_factory=Tokens)
    cost: float | None = None
    turns: int = 0
    tool_calls: int = 0
    uptake: Uptake = field(default_factory=Uptake)
    output: str = ""
    error: str | None = None

    @property
    def assertions_passed(self) -> float | None:
        """The share of the run's assertions and checks that passed (None: it has none)."""
        if not self.graded:
            return None
        return sum(g.verdict == "passed" for g in self.graded) / len(self.graded)

    def measure(self, name: str) -> float | None:
        values: dict[str, float | None] = {
            "pass_rate": float(self.passed),
            "assertions": self.assertions_passed,
            "seconds": self.seconds,
            "tokens": float(self.tokens.total),
            "cost": self.cost,
            "turns": float(self.turns),
            "tool_calls": float(self.tool_calls),
        }
        return values[name]

    def to_json(self) -> dict[str, Any]:
        return {
            "case": self.case,
            "configuration": self.configuration,
            "repeat": self.repeat,
            "branch": self.branch,
            "outcome": self.outcome,
            "passed": self.passed,
            "graded": [g.to_json() for g in self.graded],
            "seconds": round(self.seconds, 3),
            "tokens": vars(self.tokens).copy(),
            "cost": self.cost,
            "turns": self.turns,
            "tool_calls": self.tool_calls,
            "uptake": self.uptake.to_json(),
            "output": self.output,
            "error": self.error,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EvalRun:
        data = dict(data)
        data["graded"] = [Graded.from_json(g) for g in data.get("graded") or []]
        data["tokens"] = Tokens(**(data.get("tokens") or {}))
        data["uptake"] = Uptake.from_json(data.get("uptake") or {})
        return cls(**data)


def spread(values: list[float | None]) -> tuple[float | None, float | None]:
    """Mean and sample standard deviation (0 for one value); None when a value is unknown."""
    if not values or None in values:
        return None, None
    known = [v for v in values if v is not None]
    return statistics.fmean(known), statistics.stdev(known) if len(known) > 1 else 0.0


def statistics_of(configuration: str, runs: list[EvalRun]) -> dict[str, Any]:
    """Mean and sd of every measure over a configuration's runs, and its uptake."""
    row: dict[str, Any] = {"configuration": configuration, "runs": len(runs)}
    for name in MEASURES:
        values = [r.measure(name) for r in runs]
        if name == "assertions":
            values = [v for v in values if v is not None]
        row[f"mean_{name}"], row[f"sd_{name}"] = spread(values)
    row["uptake"] = sum(r.uptake.loaded for r in runs) / len(runs) if runs else 0.0
    row["violations"] = sum(r.uptake.violations for r in runs)
    row["cycles"] = sum(r.uptake.cycles for r in runs)
    return row


def verdict(base: str, other: str, a: list[EvalRun], b: list[EvalRun]) -> str:
    """In plain words: does `base` pass more often than `other`, and can the runs tell?"""
    n, m = len(a), len(b)
    if n < MIN_RUNS or m < MIN_RUNS:
        return (
            f"too few runs to tell ({n} and {m}; at least {MIN_RUNS} each): "
            f"run again with --repeat {max(MIN_RUNS, 5)}"
        )
    p, q = sum(r.passed for r in a) / n, sum(r.passed for r in b) / m
    diff = p - q
    noise = 2 * math.sqrt(p * (1 - p) / n + q * (1 - q) / m)
    if diff == 0:
        return f"no difference in pass rate over {n} and {m} runs"
    if abs(diff) <= noise:
        return (
            f"{diff:+.0%} in pass rate is within the noise of {n} and {m} runs: "
            "no clear difference (more runs would tell)"
        )
    better = base if diff > 0 else other
    return f"{better} passes more often: {diff:+.0%} over {n} and {m} runs"


@dataclass
class EvalReport:
    """One skill's eval: its cases, configurations and runs, and (when asked) its triggers."""

    skill: str
    cases: list[dict[str, Any]]
    configurations: list[str]
    runs: list[EvalRun]
    sweep: str | None = None
    triggers: dict[str, Any] | None = None
    stopped: str | None = None

    def of(self, configuration: str) -> list[EvalRun]:
        return [r for r in self.runs if r.configuration == configuration]

    def statistics(self) -> list[dict[str, Any]]:
        return [statistics_of(c, self.of(c)) for c in self.configurations]

    def summary(self) -> list[dict[str, Any]]:
        """The issue's summary rows: pass rate and uptake as fractions from 0 to 1."""
        return [
            {
                "configuration": row["configuration"],
                "runs": row["runs"],
                "pass_rate": row["mean_pass_rate"] if row["runs"] else 0.0,
                "mean_seconds": row["mean_seconds"],
                "sd_seconds": row["sd_seconds"],
                "mean_tokens": row["mean_tokens"],
                "mean_cost": row["mean_cost"],
                "uptake": row["uptake"],
            }
            for row in self.statistics()
        ]

    def deltas(self) -> list[dict[str, Any]]:
        """Each configuration against the first (`with_skill`): differences of the means, with
        the runs behind them and the verdict."""
        if not self.configurations:
            return []
        base = self.configurations[0]
        stats = {row["configuration"]: row for row in self.statistics()}
        rows = []
        for other in self.configurations[1:]:
            row: dict[str, Any] = {"base": base, "other": other}
            row["runs"] = [len(self.of(base)), len(self.of(other))]
            for name in ("pass_rate", "seconds", "tokens", "cost"):
                x, y = stats[base][f"mean_{name}"], stats[other][f"mean_{name}"]
                row[name] = None if x is None or y is None else x - y
            row["verdict"] = verdict(base, other, self.of(base), self.of(other))
            rows.append(row)
        return rows

    def to_json(self) -> dict[str, Any]:
        return {
            "skill": self.skill,
            "cases": self.cases,
            "runs": [r.to_json() for r in self.runs],
            "summary": self.summary(),
        }

    def benchmark(self) -> dict[str, Any]:
        """`benchmark.json`: the JSON document and the full statistics, deltas and triggers."""
        return {
            **self.to_json(),
            "configurations": self.configurations,
            "sweep": self.sweep,
            "statistics": self.statistics(),
            "deltas": self.deltas(),
            "triggers": self.triggers,
            "stopped": self.stopped,
        }

    @classmethod
    def from_benchmark(cls, data: dict[str, Any]) -> EvalReport:
        return cls(
            skill=str(data["skill"]),
            cases=list(data.get("cases") or []),
            configurations=list(data.get("configurations") or []),
            runs=[EvalRun.from_json(r) for r in data.get("runs") or []],
            sweep=data.get("sweep"),
            triggers=data.get("triggers"),
            stopped=data.get("stopped"),
        )
