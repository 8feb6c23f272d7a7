"""An eval as one self-contained HTML file (like a session's export): the summary table, a bar
chart (inline SVG) of pass rate and uptake per configuration, the deltas with their verdicts,
and per case the runs' answers side by side with each assertion's verdict and evidence.

Nothing is fetched: styles are inline, there is no script, and a Content-Security-Policy meta
tag forbids anything else. Every text from a run or a skill is escaped, so an answer holding
`<script>` shows as text.
"""

from __future__ import annotations

from html import escape
from typing import Any

from workbench import __version__
from workbench.evals.results import EvalReport, EvalRun
from workbench.text import count_of

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
STYLE = """
:root{--fg:#1f2328;--muted:#656d76;--bg:#fff;--panel:#f6f8fa;--line:#d0d7de;--good:#1a7f37;
--bad:#cf222e;--warn:#9a6700;--bar:#0969da;--bar2:#8250df}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#8d96a0;--bg:#0d1117;
--panel:#161b22;--line:#30363d;--good:#3fb950;--bad:#f85149;--warn:#d29922;--bar:#2f81f7;
--bar2:#a371f7}}
body{font:15px/1.5 system-ui,sans-serif;color:var(--fg);background:var(--bg);margin:0}
main{max-width:1200px;margin:0 auto;padding:24px}
table{border-collapse:collapse;margin:8px 0 16px}td,th{border:1px solid var(--line);
padding:4px 8px;text-align:left;vertical-align:top}th{background:var(--panel)}
.meta{color:var(--muted)}.passed{color:var(--good)}.failed{color:var(--bad)}
.ungraded{color:var(--warn)}pre{white-space:pre-wrap;background:var(--panel);padding:8px;
margin:4px 0;max-height:24em;overflow:auto}.runs{display:flex;gap:12px;overflow-x:auto}
.run{flex:1 1 0;min-width:280px;border:1px solid var(--line);padding:8px}
svg text{fill:var(--fg);font:12px system-ui,sans-serif}
"""
BAR_W, GAP, HEIGHT, TOP, LEFT = 28, 40, 160, 20, 40


def _pm(mean: float | None, sd: float | None, fmt: str) -> str:
    if mean is None:
        return "?"
    return fmt.format(mean) + ("" if not sd else " ± " + fmt.format(sd))


def chart(statistics: list[dict[str, Any]]) -> str:
    """Bars of pass rate (with its sd as a whisker) and uptake, one pair per configuration."""
    width = LEFT + len(statistics) * (2 * BAR_W + GAP) + GAP
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{HEIGHT + TOP + 50}" '
        'role="img" aria-label="pass rate and uptake per configuration">'
    ]
    for tick in (0, 50, 100):
        y = TOP + HEIGHT - HEIGHT * tick / 100
        parts.append(f'<line x1="{LEFT}" x2="{width}" y1="{y}" y2="{y}" stroke="#8886"/>')
        parts.append(f'<text x="4" y="{y + 4}">{tick}%</text>')
    for index, row in enumerate(statistics):
        x = LEFT + GAP / 2 + index * (2 * BAR_W + GAP)
        rate, sd, uptake = row["mean_pass_rate"] or 0.0, row["sd_pass_rate"] or 0.0, row["uptake"]
        for offset, value, color, label in (
            (0, rate, "var(--bar)", "pass rate"),
            (BAR_W, uptake, "var(--bar2)", "uptake"),
        ):
            h = HEIGHT * value
            parts.append(
                f'<rect class="bar" x="{x + offset}" y="{TOP + HEIGHT - h}" width="{BAR_W - 4}" '
                f'height="{h}" fill="{color}"><title>{escape(row["configuration"])} {label}: '
                f"{value:.0%}</title></rect>"
            )
        low, high = max(0.0, rate - sd), min(1.0, rate + sd)
        cx = x + BAR_W / 2 - 2
        y1, y2 = TOP + HEIGHT - HEIGHT * low, TOP + HEIGHT - HEIGHT * high
        parts.append(f'<line x1="{cx}" x2="{cx}" y1="{y1}" y2="{y2}" stroke="currentColor"/>')
        parts.append(
            f'<text x="{x}" y="{TOP + HEIGHT + 16}">{escape(row["configuration"])}</text>'
            f'<text x="{x}" y="{TOP + HEIGHT + 32}">{rate:.0%} · {uptake:.0%}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _summary(report: EvalReport) -> str:
    head = "configuration runs pass&nbsp;rate graded seconds tokens cost turns tools uptake"
    rows = [
        "<tr>"
        + "".join(
            f"<td>{escape(cell)}</td>"
            for cell in (
                row["configuration"],
                str(row["runs"]),
                _pm(row["mean_pass_rate"], row["sd_pass_rate"], "{:.0%}"),
                _pm(row["mean_assertions"], row["sd_assertions"], "{:.0%}"),
                _pm(row["mean_seconds"], row["sd_seconds"], "{:.1f}"),
                _pm(row["mean_tokens"], row["sd_tokens"], "{:.0f}"),
                _pm(row["mean_cost"], row["sd_cost"], "${:.4f}"),
                _pm(row["mean_turns"], row["sd_turns"], "{:.1f}"),
                _pm(row["mean_tool_calls"], row["sd_tool_calls"], "{:.1f}"),
                f"{row['uptake']:.0%}",
            )
        )
        + "</tr>"
        for row in report.statistics()
    ]
    header = "".join(f"<th>{h}</th>" for h in head.split())
    return f'<table class="summary"><tr>{header}</tr>{"".join(rows)}</table>'


def _deltas(report: EvalReport) -> str:
    items = [
        f"<li><b>{escape(d['base'])}</b> vs <b>{escape(d['other'])}</b> "
        f"({d['runs'][0]} and {d['runs'][1]} runs): {escape(d['verdict'])}</li>"
        for d in report.deltas()
    ]
    return f"<ul>{''.join(items)}</ul>" if items else ""


def _run(run: EvalRun) -> str:
    loaded = f"loaded at turn {run.uptake.turn}" if run.uptake.loaded else "skill not loaded"
    layers = ", ".join(run.uptake.layers) or "none"
    graded = "".join(
        f'<li class="{escape(g.verdict)}">{escape(g.verdict)} · {escape(g.kind)}: '
        f"{escape(g.text)}<br><small>{escape(g.evidence)}</small></li>"
        for g in run.graded
    )
    return (
        f'<div class="run"><b>{escape(run.configuration)}</b> #{run.repeat} · '
        f'<span class="{"passed" if run.passed else "failed"}">'
        f"{'passed' if run.passed else 'failed'}</span> · {escape(run.outcome)}<br>"
        f'<span class="meta">{escape(run.branch)} · {run.seconds:.1f}s · '
        f"{run.tokens.total} tokens · {loaded} · layers {escape(layers)} · "
        f"{run.uptake.violations} violations</span>"
        f"<ul>{graded}</ul><pre>{escape(run.output or '(no answer)')}</pre></div>"
    )


def _case(report: EvalReport, case: dict[str, Any]) -> str:
    runs = [r for r in report.runs if r.case == case["id"]]
    return (
        f"<h3>Case {escape(str(case['id']))}</h3><pre>{escape(case['prompt'])}</pre>"
        f'<div class="runs">{"".join(_run(r) for r in runs)}</div>'
    )


def render_html(report: EvalReport) -> str:
    title = f"Eval of {report.skill}"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body><main>",
        f"<h1>{escape(title)}</h1>",
        f'<div class="meta">{count_of(len(report.cases), "case")} · '
        f"{count_of(len(report.runs), 'run')} · "
        f"{escape(report.sweep or '')} · workbench {escape(__version__)}</div>",
        "<h2>Summary</h2>",
        _summary(report),
        chart(report.statistics()),
        '<div class="meta">blue: pass rate (the line: ± one sd) · purple: uptake, the share of '
        "runs that loaded the skill</div>",
        _deltas(report),
        "<h2>Cases</h2>",
        *(_case(report, case) for case in report.cases),
        "</main></body></html>",
    ]
    return "\n".join(parts) + "\n"
