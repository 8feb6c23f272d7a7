"""A transcript as Markdown, for pasting into a pull request.

Messages keep their Markdown, but raw HTML in them is neutralised (`<` becomes `&lt;` outside
code), so a message cannot inject tags into the page it is pasted in: most renderers, unlike
GitHub's, do not sanitise what they render. Where code starts and ends is read as CommonMark
reads it, and the result is checked with a CommonMark parser: a message in which it still
finds raw HTML is shown as its plain text in a code block. Names (branches, skills) go into
code spans that no backtick in them can close, and NUL bytes are dropped. Tool calls fold into
`<details>` blocks (GitHub and GitLab render them) with their arguments and results in fences
longer than any backtick run inside them.
"""

from __future__ import annotations

import re
import time
from functools import cache
from html import escape

from markdown_it import MarkdownIt
from markdown_it.token import Token

from workbench.sessions.export.html import MAX_RESULT_CHARS, WHO, cost_text
from workbench.sessions.export.sweep_tables import RUN_HEADER, VARIANT_HEADER, SweepTable
from workbench.sessions.export.transcript import Item, ToolCallView, Transcript
from workbench.sessions.workspaces.export_mark import MARKDOWN_MARK
from workbench.text import count_of

OPENING_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
"""CommonMark's: at most three spaces in (four make indented code); a backtick fence's info
string holds no backtick."""
CLOSING_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*$")
INLINE_CODE = re.compile(r"(?<![`\\])(`+)(?!`)(.+?)(?<!`)\1(?!`)")
"""A code span: a backtick run not escaped nor part of a longer run, closed by a run of the same
length."""
RAW_HTML = ("html_block", "html_inline")


def render_markdown(transcript: Transcript) -> str:
    t = transcript
    f = t.figures
    cost = cost_text(f)
    loads = t.skill_loads
    violations = [load for load in loads if load.verdict != "ok" or load.blocked]
    lines = [
        f"## {_inline(t.title)} — branch {_code(t.branch)}",
        "",
        f"Session {_code(t.session_id)} · {count_of(t.entries, 'entry', 'entries')} · "
        f"{count_of(f.replies, 'reply', 'replies')} · "
        f"{f.input_tokens:,} tokens in, {f.output_tokens:,} out · cost {cost} · "
        f"{count_of(len(loads), 'skill load')}, {count_of(len(violations), 'violation')}",
        "",
        "Place in the tree: "
        + " → ".join(_code(name) for name, _ in t.place.ancestry)
        + (f" ({len(t.place.outline)} branches in all)" if len(t.place.outline) > 1 else ""),
        "",
    ]
    for item in t.items:
        lines += _item(item)
    lines += ["### Files changed", ""]
    if t.diff.strip():
        lines += _fenced(t.diff, "diff")
    else:
        lines += [_inline(t.diff_note or "no file changes on this branch"), ""]
    made = time.strftime("%Y-%m-%d %H:%M", time.localtime(t.made))
    lines += [f"<sub>exported with workbench on {made}</sub>", "", MARKDOWN_MARK, ""]
    return "\n".join(lines).replace("\0", "")


def _item(item: Item) -> list[str]:
    who = WHO.get(item.kind, item.kind)
    lines = [f"**{who}** <sub>{item.entry.id[:10]}</sub>", ""]
    if item.text:
        lines += [_text(item.text), ""]
    if item.ending:
        lines += [f"*{_inline(item.ending)}*", ""]
    for load in item.loads:
        lines.append(f"- skill {_code(load.skill)}: {_verdict_text(load.verdict, load.reason)}")
    lines += [""] if item.loads else []
    for call in item.calls:
        lines += _call(call)
    if item.table:
        lines += _sweep(item.table)
    return lines


def _grid(header: list[str], rows: list[list[str]]) -> list[str]:
    """A GitHub table; each cell our own text, escaped, its `|` too."""

    def row(cells: list[str]) -> str:
        return "| " + " | ".join(_inline(c).replace("|", "\\|") for c in cells) + " |"

    return [row(header), "|" + " --- |" * len(header), *(row(r) for r in rows), ""]


def _sweep(table: SweepTable) -> list[str]:
    """A sweep's runs, then its variants best first."""
    lines = _grid(RUN_HEADER, table.runs)
    if table.variants:
        lines += _grid(VARIANT_HEADER, table.variants)
    return lines + ([f"stopped: {_inline(table.stopped)}", ""] if table.stopped else [])


def _call(call: ToolCallView) -> list[str]:
    key = f" {_inline(call.key)}" if call.key else ""
    loads = "".join(
        f" · skill {_inline(load.skill)}: {_inline(load.verdict)}" for load in call.loads
    )
    result = call.result or ""
    if len(result) > MAX_RESULT_CHARS:
        result = result[:MAX_RESULT_CHARS] + "\n… (cut in the export)"
    return [
        f"<details><summary>{_inline(call.name)}{key} · {_inline(call.status)}{loads}</summary>",
        "",
        *_fenced(call.arguments, "json"),
        *_fenced(result, ""),
        *(f"- {_inline(load.skill)}: {_inline(load.reason)}" for load in call.loads if load.reason),
        "</details>",
        "",
    ]


def _verdict_text(verdict: str, reason: str) -> str:
    return verdict + (f" — {_inline(reason)}" if reason else "")


def _fenced(text: str, language: str) -> list[str]:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{language}", text.rstrip("\n"), fence, ""]


def _inline(text: str) -> str:
    """One line of our own text: HTML-escaped."""
    return escape(text, quote=False).replace("\n", " ")


def _code(text: str) -> str:
    """`text` as a code span, which no backtick run inside can close (HTML is inert in it)."""
    text = text.replace("\n", " ")
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _text(text: str) -> str:
    """A message's Markdown with raw HTML neutralised outside code blocks and code spans; if a
    CommonMark parser still finds raw HTML in it, its plain text in a code block."""
    kept = _outside_code_escaped(text)
    if not _has_raw_html(_parser().parse(kept)):
        return kept
    return "\n".join(_fenced(text, "")[:-1])


def _outside_code_escaped(text: str) -> str:
    out: list[str] = []
    fence = ""
    for line in text.splitlines():
        if fence:
            closing = CLOSING_FENCE.match(line)
            if closing and closing.group(1)[0] == fence[0] and len(closing.group(1)) >= len(fence):
                fence = ""
            out.append(line)
            continue
        opening = OPENING_FENCE.match(line)
        if opening and not (opening.group(1)[0] == "`" and "`" in opening.group(2)):
            fence = opening.group(1)
            out.append(line)
        else:
            out.append(_outside_code(line))
    if fence:
        out.append(fence)  # close a fence the message left open, so the rest stays ours
    return "\n".join(out)


def _outside_code(line: str) -> str:
    parts, last = [], 0
    for match in INLINE_CODE.finditer(line):
        parts += [line[last : match.start()].replace("<", "&lt;"), match.group()]
        last = match.end()
    return "".join(parts) + line[last:].replace("<", "&lt;")


@cache
def _parser() -> MarkdownIt:
    """CommonMark with raw HTML recognised: what most renderers of a `.md` file do."""
    return MarkdownIt("commonmark")


def _has_raw_html(tokens: list[Token]) -> bool:
    return any(t.type in RAW_HTML or _has_raw_html(t.children or []) for t in tokens)
