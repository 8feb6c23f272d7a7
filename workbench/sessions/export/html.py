"""A transcript as one self-contained HTML file: anyone can open it, offline.

Styles and the one small script are inline; nothing is fetched (no `src`, no external `href`:
a Content-Security-Policy meta tag forbids it too). Every piece of text from the session is
escaped, so a message that holds `<script>` shows as text; messages are rendered as Markdown
with raw HTML, links and images left as text. Tool calls are collapsed
(`<details>`) with their results; skill loads show beside the call that made them, violations in
red; long results are cut on screen only after a generous limit, never silently.
"""

from __future__ import annotations

import functools
import time
from html import escape

from markdown_it import MarkdownIt

from workbench import __version__
from workbench.enforcer.state import LoadRecord
from workbench.sessions.export.sweep_tables import RUN_HEADER, VARIANT_HEADER, SweepTable
from workbench.sessions.export.transcript import Figures, Item, ToolCallView, Transcript
from workbench.sessions.workspaces.export_mark import HTML_MARK
from workbench.text import count_of

MAX_RESULT_CHARS = 200_000
"""A tool result longer than this is cut in the export (and says so)."""

STYLE = """
:root{--fg:#1f2328;--muted:#656d76;--bg:#fff;--panel:#f6f8fa;--line:#d0d7de;--user:#0969da;
--ai:#8250df;--bad:#cf222e;--good:#1a7f37;--warn:#9a6700}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#8d96a0;--bg:#0d1117;
--panel:#161b22;--line:#30363d;--user:#4493f8;--ai:#ab7df8;--bad:#f85149;--good:#3fb950;
--warn:#d29922}}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);
background:var(--bg)}
main{max-width:960px;margin:0 auto;padding:24px 16px 64px}
h1{font-size:1.5em;margin:0 0 4px}h2{font-size:1.1em;margin:28px 0 8px;
border-bottom:1px solid var(--line);padding-bottom:4px}
.meta{color:var(--muted);font-size:.9em}
.figures{display:flex;flex-wrap:wrap;gap:8px;margin:12px 0}
.figure{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:4px 10px}
.figure b{display:block;font-size:1.1em}
.tree{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em;margin:0;
padding:8px 12px;background:var(--panel);border-radius:6px;border:1px solid var(--line)}
.tree .here{color:var(--user);font-weight:bold}
.entry{border-left:3px solid var(--line);padding:4px 12px;margin:12px 0}
.entry .who{font-weight:600;font-size:.85em;color:var(--muted)}
.entry.user{border-color:var(--user)}.entry.user .who{color:var(--user)}
.entry.assistant{border-color:var(--ai)}.entry.assistant .who{color:var(--ai)}
.entry.notice,.entry.checkpoint,.entry.merge,.entry.label,.entry.compaction,
.entry.branch_summary{border-color:var(--warn);background:var(--panel)}
.text{white-space:pre-wrap;overflow-wrap:anywhere}
.md{overflow-wrap:anywhere}.md p{margin:4px 0}.md table{border-collapse:collapse}
.md td,.md th{border:1px solid var(--line);padding:2px 6px}
.md code{background:var(--panel);border-radius:4px;padding:0 3px;font-size:.9em}
pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:4px 0;padding:8px;
background:var(--panel);border-radius:6px;
font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace}
details.tool{border:1px solid var(--line);border-radius:6px;margin:6px 0;padding:0 8px}
details.tool>summary{cursor:pointer;padding:4px 0;font-family:ui-monospace,monospace;
font-size:.9em}
details.tool.error>summary{color:var(--bad)}
details.tool.skipped>summary{color:var(--warn);font-style:italic}
.load{display:inline-block;font-size:.8em;border-radius:10px;padding:0 8px;margin-left:6px;
border:1px solid var(--good);color:var(--good)}
.load.violation,.load.blocked,.load.denied,.load.cycle{border-color:var(--bad);color:var(--bad)}
.load.repeat{border-color:var(--warn);color:var(--warn)}
.why{color:var(--bad);font-size:.9em;margin:2px 0}
.ending{color:var(--warn);font-style:italic;font-size:.9em}
.thinking{color:var(--muted);font-style:italic}
.diff .add{color:var(--good)}.diff .del{color:var(--bad)}.diff .hunk{color:var(--user)}
.diff .file{font-weight:bold}
table.sweep{border-collapse:collapse;margin:6px 0;font-size:.9em}
table.sweep td,table.sweep th{border:1px solid var(--line);padding:2px 8px;text-align:left}
table.sweep tr.best td{font-weight:bold}
button{font:inherit;font-size:.85em;background:var(--panel);color:var(--fg);
border:1px solid var(--line);border-radius:6px;padding:2px 10px;cursor:pointer}
"""

SCRIPT = """
document.getElementById('toggle').addEventListener('click',function(){
var all=document.querySelectorAll('details.tool');var open=!all.length||!all[0].open;
all.forEach(function(d){d.open=open});
this.textContent=open?'Collapse tool calls':'Expand tool calls';});
"""

CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"


def render_html(transcript: Transcript) -> str:
    t = transcript
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        HTML_MARK,
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(t.title)} · {escape(t.branch)}</title>",
        f"<style>{STYLE}</style></head><body><main>",
        f"<h1>{escape(t.title)}</h1>",
        f'<div class="meta">session {escape(t.session_id)} · branch <b>{escape(t.branch)}</b>'
        f" · {count_of(t.entries, 'entry', 'entries')} · exported {escape(_when(t.made))} "
        "by workbench "
        f"{escape(__version__)}</div>",
        _figures(t.figures, t),
        "<h2>Place in the tree</h2>",
        _place(t),
        '<h2>Conversation <button id="toggle" type="button">Expand tool calls</button></h2>',
        *(_item(item) for item in t.items),
        "<h2>Files changed</h2>",
        _diff(t),
        f"</main><script>{SCRIPT}</script></body></html>",
    ]
    return "\n".join(parts) + "\n"


MARKDOWN_KINDS = {"user", "assistant", "compaction", "branch_summary", "merge"}
"""What is written in Markdown and shown rendered; the rest is shown as it is."""


@functools.cache
def _markdown() -> MarkdownIt:
    """CommonMark with tables and strikethrough; raw HTML shows as text, and links and images as
    the text they are written with: nothing in a message can fetch or point anywhere."""
    parser = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    return parser.disable(["link", "image", "autolink"])


def markdown_html(text: str) -> str:
    html: str = _markdown().render(text)
    return html


def _when(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))


def cost_text(figures: Figures) -> str:
    """The cost; "+ unknown" when a reply with tokens had no price (never counted as zero)."""
    if figures.cost is not None:
        return f"${figures.cost:.4f}" + ("" if figures.cost_known else " + unknown")
    return "unknown" if figures.input_tokens or figures.output_tokens else "none"


def _figures(figures: Figures, t: Transcript) -> str:
    loads = t.skill_loads
    violations = [load for load in loads if load.verdict != "ok" or load.blocked]
    cost = cost_text(figures)
    shown = [
        ("replies", f"{figures.replies:,}"),
        ("tokens in", f"{figures.input_tokens:,}"),
        ("tokens out", f"{figures.output_tokens:,}"),
        ("cache read", f"{figures.cache_read_tokens:,}"),
        ("cost", cost),
        ("skill loads", f"{len(loads):,}"),
        ("violations", f"{len(violations):,}"),
    ]
    cells = "".join(
        f'<div class="figure">{escape(label)}<b>{escape(value)}</b></div>' for label, value in shown
    )
    return f'<div class="figures">{cells}</div>'


def _place(t: Transcript) -> str:
    ancestry = " → ".join(
        escape(name) + (f" (from {escape(fork[:10])})" if fork else "")
        for name, fork in t.place.ancestry
    )
    lines = []
    for depth, name, own in t.place.outline:
        mark = ' class="here"' if name == t.branch else ""
        here = "  ◀ this export" if name == t.branch else ""
        lines.append(
            f"{'  ' * depth}<span{mark}>⎇ {escape(name)}</span> "
            f"({count_of(own, 'entry', 'entries')}){escape(here)}"
        )
    return f'<div class="meta">{ancestry}</div><pre class="tree">{chr(10).join(lines)}</pre>'


WHO = {
    "user": "You",
    "assistant": "Assistant",
    "notice": "Notice",
    "compaction": "Summary of earlier history",
    "branch_summary": "Summary of a branch left",
    "checkpoint": "Checkpoint",
    "merge": "Merge",
    "label": "Label",
    "sweep": "Sweep",
    "tool_result": "Tool result",
}


def _item(item: Item) -> str:
    entry = item.entry
    who = WHO.get(item.kind, item.kind)
    head = (
        f'<div class="who">{escape(who)} · {escape(_when(entry.timestamp))} · '
        f"{escape(entry.id[:10])}</div>"
    )
    body = []
    if item.thinking:
        body.append(f'<div class="text thinking">{escape(item.thinking)}</div>')
    if item.text and item.kind in MARKDOWN_KINDS:
        body.append(f'<div class="md">{markdown_html(item.text)}</div>')
    elif item.text:
        body.append(f'<div class="text">{escape(item.text)}</div>')
    body += [f'<div class="ending">{escape(item.ending)}</div>'] if item.ending else []
    body += [_loads(item.loads)] if item.loads else []
    body += [_call(call) for call in item.calls]
    body += [_sweep(item.table)] if item.table else []
    attributes = f'class="entry {escape(item.kind)}" id="e-{escape(entry.id)}"'
    return f"<section {attributes}>{head}{''.join(body)}</section>"


def _table(header: list[str], rows: list[list[str]], best: bool = False) -> str:
    """A table of text cells; with `best`, its first row (the best variant) stands out."""
    head = "".join(f"<th>{escape(cell)}</th>" for cell in header)
    lines = []
    for n, row in enumerate(rows):
        mark = ' class="best"' if best and n == 0 else ""
        lines.append(f"<tr{mark}>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>")
    return f'<table class="sweep"><tr>{head}</tr>{"".join(lines)}</table>'


def _sweep(table: SweepTable) -> str:
    """A sweep's runs, then its variants best first."""
    parts = [_table(RUN_HEADER, table.runs)]
    if table.variants:
        parts.append(_table(VARIANT_HEADER, table.variants, best=True))
    if table.stopped:
        parts.append(f'<div class="why">stopped: {escape(table.stopped)}</div>')
    return "".join(parts)


def _call(call: ToolCallView) -> str:
    summary = f"{escape(call.name)} {escape(call.key)} · {escape(call.status)}"
    result = call.result or ""
    cut = ""
    if len(result) > MAX_RESULT_CHARS:
        cut = f"\n… {len(result) - MAX_RESULT_CHARS:,} more characters not shown in the export"
        result = result[:MAX_RESULT_CHARS]
    css = "tool skipped" if call.skipped else "tool error" if call.is_error else "tool"
    return (
        f'<details class="{css}"><summary>{summary}{_loads(call.loads)}</summary>'
        f"<div>arguments</div><pre>{escape(call.arguments)}</pre>"
        f"<div>result</div><pre>{escape(result)}{escape(cut)}</pre>{_reasons(call.loads)}"
        "</details>"
    )


def _verdict(load: LoadRecord) -> str:
    return "blocked" if load.blocked else load.verdict


def _loads(loads: list[LoadRecord]) -> str:
    return "".join(
        f'<span class="load {escape(_verdict(load))}">{escape(load.skill)}'
        f"{' (' + escape(load.layer) + ')' if load.layer else ''} · {escape(_verdict(load))}"
        "</span>"
        for load in loads
    )


def _reasons(loads: list[LoadRecord]) -> str:
    return "".join(
        f'<div class="why">{escape(load.skill)}: {escape(load.reason)}'
        f"{' — ' + escape(load.suggestion) if load.suggestion else ''}</div>"
        for load in loads
        if load.reason and load.verdict != "ok"
    )


def _diff(t: Transcript) -> str:
    if not t.diff.strip():
        note = t.diff_note or "no file changes on this branch"
        return f'<div class="meta">{escape(note)}</div>'
    lines = []
    for line in t.diff.splitlines():
        css = (
            "file"
            if line.startswith(("diff --git", "+++ ", "--- "))
            else "hunk"
            if line.startswith("@@")
            else "add"
            if line.startswith("+")
            else "del"
            if line.startswith("-")
            else ""
        )
        text = escape(line)
        lines.append(f'<span class="{css}">{text}</span>' if css else text)
    return f'<pre class="diff">{chr(10).join(lines)}</pre>'
