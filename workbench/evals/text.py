"""An eval as text: the runs, the configurations as mean ± sd, the deltas and their verdicts."""

from __future__ import annotations

from typing import Any

from workbench.evals.results import EvalReport, EvalRun
from workbench.text import count_of


def _grid(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    ]


def _pm(mean: float | None, sd: float | None, fmt: str = "{:.1f}") -> str:
    if mean is None:
        return "?"
    return fmt.format(mean) + ("" if not sd else " ± " + fmt.format(sd))


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _signed(value: float | None, fmt: str) -> str:
    return "?" if value is None else fmt.format(value)


def run_line(run: EvalRun) -> str:
    graded = "".join({"passed": "✓", "failed": "✗"}.get(g.verdict, "?") for g in run.graded)
    loaded = f"loaded at turn {run.uptake.turn}" if run.uptake.loaded else "not loaded"
    return f"{run.branch}: {'PASS' if run.passed else 'fail'} {graded} {loaded}"


def _run_row(run: EvalRun) -> list[str]:
    return [
        run.case,
        run.configuration,
        str(run.repeat),
        run.outcome,
        "pass" if run.passed else "fail",
        _share(run.assertions_passed),
        f"{run.seconds:.1f}",
        str(run.tokens.total),
        "?" if run.cost is None else f"${run.cost:.4f}",
        str(run.turns),
        str(run.tool_calls),
        str(run.uptake.turn) if run.uptake.loaded else "no",
        ",".join(run.uptake.layers) or "-",
        str(run.uptake.violations),
    ]


def _stat_row(row: dict[str, Any]) -> list[str]:
    cost = row["mean_cost"]
    return [
        row["configuration"],
        str(row["runs"]),
        _pm(row["mean_pass_rate"], row["sd_pass_rate"], "{:.0%}"),
        _pm(row["mean_assertions"], row["sd_assertions"], "{:.0%}"),
        _pm(row["mean_seconds"], row["sd_seconds"]),
        _pm(row["mean_tokens"], row["sd_tokens"], "{:.0f}"),
        "?" if cost is None else f"${cost:.4f}",
        _pm(row["mean_turns"], row["sd_turns"]),
        _pm(row["mean_tool_calls"], row["sd_tool_calls"]),
        f"{row['uptake']:.0%}",
        str(row["violations"]),
        str(row["cycles"]),
    ]


def render_report(report: EvalReport) -> str:
    cases = count_of(len(report.cases), "case")
    lines = [
        f"eval of {report.skill}: {cases} × {count_of(len(report.configurations), 'configuration')}"
        + (f" ({report.sweep})" if report.sweep else ""),
        "",
    ]
    header = ["case", "configuration", "run", "outcome", "result", "graded", "secs", "tokens"]
    header += ["cost", "turns", "tools", "loaded", "layers", "violations"]
    lines += _grid(header, [_run_row(r) for r in report.runs])
    lines.append("")
    header = ["configuration", "runs", "pass rate", "graded", "seconds", "tokens", "cost"]
    header += ["turns", "tools", "uptake", "violations", "cycles"]
    lines += _grid(header, [_stat_row(r) for r in report.statistics()])
    deltas = report.deltas()
    if deltas:
        lines.append("")
    for delta in deltas:
        lines.append(
            f"{delta['base']} vs {delta['other']} ({delta['runs'][0]} and {delta['runs'][1]} "
            f"runs): pass rate {_signed(delta['pass_rate'], '{:+.0%}')}, seconds "
            f"{_signed(delta['seconds'], '{:+.1f}')}, tokens {_signed(delta['tokens'], '{:+.0f}')}"
            f" — {delta['verdict']}"
        )
    if report.triggers:
        lines += ["", *_trigger_lines(report.triggers)]
    if report.stopped:
        lines += ["", f"stopped: {report.stopped}"]
    return "\n".join(lines)


def _trigger_lines(triggers: dict[str, Any]) -> list[str]:
    rows = [
        [
            q["query"][:50],
            "yes" if q["should_trigger"] else "no",
            f"{q.get('loaded', 0)}/{q['runs']}",
        ]
        for q in triggers["queries"]
    ]
    return [
        *_grid(["trigger query", "should load", "loaded"], rows),
        f"description: precision {_share(triggers['precision'])}, "
        f"recall {_share(triggers['recall'])}",
    ]


def summary_lines(report: EvalReport) -> list[str]:
    """A skill's last eval in a few lines (the skill detail view): per configuration its pass
    rate and uptake, then the verdicts."""
    lines = [f"last eval ({report.sweep or 'no sweep'}): {len(report.runs)} runs"]
    for row in report.statistics():
        rate = row["mean_pass_rate"]
        lines.append(
            f"  {row['configuration']}: {_share(rate)} passed, uptake {row['uptake']:.0%}, "
            f"{_pm(row['mean_seconds'], row['sd_seconds'])}s"
        )
    lines += [f"  vs {d['other']}: {d['verdict']}" for d in report.deltas()]
    return lines
