"""A sweep as text: one row per run, then one per variant, best first."""

from __future__ import annotations

from typing import Any

from workbench.sweeps.record import Run, Sweep


def _cost(value: float | None) -> str:
    return "?" if value is None else f"${value:.4f}"


def _check(run: Run) -> str:
    if run.check is None:
        return "-"
    return "pass" if run.check.passed else f"FAIL({run.check.exit_code})"


def _row(cells: list[str], widths: list[int]) -> str:
    return "  ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True)).rstrip()


def _grid(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return [_row(header, widths), *(_row(r, widths) for r in rows)]


def _mean(value: Any, unit: str = "") -> str:
    return "?" if value is None else f"{value:.1f}{unit}"


def run_line(run: Run) -> str:
    """A run's progress line (stderr)."""
    line = (
        f"{run.branch}: {run.outcome}, {run.tokens.total} tokens, {_cost(run.cost)}, "
        f"{run.seconds:.1f}s, check {_check(run)}"
    )
    return f"{line} ({run.error})" if run.error and run.outcome != "running" else line


def render_sweep(sweep: Sweep) -> str:
    runs = [
        [
            r.branch,
            r.outcome,
            _check(r),
            str(r.tokens.input),
            str(r.tokens.output),
            _cost(r.cost),
            f"{r.seconds:.1f}",
            str(r.turns),
            str(r.tool_calls),
            str(r.violations),
            f"{r.files_changed} +{r.lines_added} -{r.lines_removed}",
        ]
        for r in sweep.runs
    ]
    header = ["branch", "outcome", "check", "in", "out", "cost", "secs", "turns", "tools"]
    lines = [f"{sweep.id} in session {sweep.session}: {sweep.prompt.strip()[:60]}", ""]
    lines += _grid([*header, "violations", "files"], runs)
    variants = [
        [
            v["name"],
            f"{v['passed']}/{v['runs']}",
            f"{v['pass_rate']:.0%}",
            _mean(v["mean_seconds"], "s"),
            _mean(v["sd_seconds"], "s"),
            _cost(v["mean_cost"]),
            _mean(v["mean_tokens"]),
        ]
        for v in sweep.summary()
    ]
    lines += [
        "",
        *_grid(["variant", "passed", "rate", "mean", "sd", "mean cost", "tokens"], variants),
    ]
    if sweep.stopped:
        lines += ["", f"stopped: {sweep.stopped}"]
    return "\n".join(lines)


def render_list(sweeps: list[Sweep]) -> str:
    if not sweeps:
        return "no sweeps in this session yet"
    rows = [
        [
            s.id,
            str(len(s.runs)),
            str(sum(r.outcome == "done" for r in s.runs)),
            s.prompt.strip()[:50],
        ]
        for s in sweeps
    ]
    return "\n".join(_grid(["sweep", "runs", "done", "question"], rows))
