"""A transcript as Markdown, for pasting into a pull request.

Messages keep their Markdown, but raw HTML in them is neutralised (`<` becomes `&lt;` outside
code), so a message cannot inject tags into the page it is pasted in. Tool calls fold into
`<details>` blocks (GitHub and GitLab render them) with their arguments and results in fences
longer than any backtick run inside them.
"""

from __future__ import annotations

import re
import time
from html import escape

from workbench.sessions.export.html import MAX_RESULT_CHARS, WHO, cost_text
from workbench.sessions.export.transcript import Item, ToolCallView, Transcript
from workbench.sessions.workspaces.export_mark import MARKDOWN_MARK

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})", re.MULTILINE)
INLINE_CODE = re.compile(r"(`+)(.+?)\1", re.DOTALL)


def render_markdown(transcript: Transcript) -> str:
    t = transcript
    f = t.figures
    cost = cost_text(f)
    loads = t.skill_loads
    violations = [load for load in loads if load.verdict != "ok" or load.blocked]
    lines = [
        f"## {_inline(t.title)} — branch `{t.branch}`",
        "",
        f"Session `{t.session_id}` · {t.entries} entries · {f.replies} replies · "
        f"{f.input_tokens:,} tokens in, {f.output_tokens:,} out · cost {cost} · "
        f"{len(loads)} skill loads, {len(violations)} violations",
        "",
        "Place in the tree: "
        + " → ".join(f"`{name}`" for name, _ in t.place.ancestry)
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
    return "\n".join(lines)


def _item(item: Item) -> list[str]:
    who = WHO.get(item.kind, item.kind)
    lines = [f"**{who}** <sub>{item.entry.id[:10]}</sub>", ""]
    if item.text:
        lines += [_text(item.text), ""]
    for load in item.loads:
        lines.append(f"- skill `{load.skill}`: {_verdict_text(load.verdict, load.reason)}")
    lines += [""] if item.loads else []
    for call in item.calls:
        lines += _call(call)
    return lines


def _call(call: ToolCallView) -> list[str]:
    status = "no result" if call.result is None else ("error" if call.is_error else "done")
    key = f" {escape(call.key)}" if call.key else ""
    loads = "".join(f" · skill {escape(load.skill)}: {escape(load.verdict)}" for load in call.loads)
    result = call.result or ""
    if len(result) > MAX_RESULT_CHARS:
        result = result[:MAX_RESULT_CHARS] + "\n… (cut in the export)"
    return [
        f"<details><summary>{escape(call.name)}{key} · {status}{loads}</summary>",
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


def _text(text: str) -> str:
    """A message's Markdown with raw HTML neutralised outside code blocks and code spans."""
    out, inside, fence = [], False, ""
    for line in text.splitlines():
        match = FENCE.match(line)
        if match and (not inside or match.group(2).startswith(fence)):
            inside, fence = (not inside), match.group(2)
            out.append(line)
        elif inside:
            out.append(line)
        else:
            out.append(_outside_code(line))
    if inside:
        out.append(fence)  # close a fence the message left open, so the rest stays ours
    return "\n".join(out)


def _outside_code(line: str) -> str:
    parts, last = [], 0
    for match in INLINE_CODE.finditer(line):
        parts += [line[last : match.start()].replace("<", "&lt;"), match.group()]
        last = match.end()
    return "".join(parts) + line[last:].replace("<", "&lt;")
