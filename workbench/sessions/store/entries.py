"""How an entry is written into a commit message and read back.

The message is a one-line summary (`type: text`), a blank line, then the entry as one line of JSON.
`git log --oneline` therefore reads like the conversation, and `git show <entry>` shows all of it.
The entry's id is its commit id, and its parent is the commit's first parent.
"""

from __future__ import annotations

import json
import re
from typing import Any, cast

from workbench.agent.store import Entry, EntryType
from workbench.errors import WorkbenchError
from workbench.messages import TYPED
from workbench.sessions.store.jsontext import json_bytes
from workbench.skipped import skipped_line, was_skipped
from workbench.text import SUMMARY_WIDTH, count_of, one_line

HEADING = re.compile(r"#{1,6}(\s|$)")
LIST_MARK = re.compile(r"^([-*+]|\d+[.)])\s+(\[[ xX]\]\s+)?")
WORD = re.compile(r"\w")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def summary_line(text: str, width: int = SUMMARY_WIDTH) -> str:
    """The first sentence of a Markdown summary's content, as `one_line` cuts it.

    Summaries are goal-first Markdown (`## Goal` then the goal): headings, empty lines and lines
    with no words (`---`) are skipped and a list mark is dropped, so the line says what the
    summary is about instead of `## Goal`.
    """
    for raw in text.splitlines():
        line = LIST_MARK.sub("", raw.strip(), count=1)
        if HEADING.match(line) or not WORD.search(line):
            continue
        sentence = SENTENCE_END.split(line, maxsplit=1)[0]
        return one_line(sentence.removesuffix("."), width)
    return ""


def entry_text(type: str, payload: dict[str, Any]) -> str:
    """A one-line, human summary of an entry for `git log` and the tree."""
    if type == "assistant":
        text = one_line(payload.get("text") or "")
        if text:
            return text
        calls = [call.get("name", "?") for call in payload.get("tool_calls") or []]
        return one_line("calls " + ", ".join(calls)) if calls else "(empty reply)"
    if type == "user" and (payload.get("details") or {}).get(TYPED):
        return one_line(str(payload["details"][TYPED]))
    if type == "tool_result":
        name, text = payload.get("tool_name") or "tool", str(payload.get("text", ""))
        if was_skipped(payload.get("details") or {}, text, bool(payload.get("is_error"))):
            return one_line(f"{name} {skipped_line(text)}")
        marker = " (error)" if payload.get("is_error") else ""
        return one_line(f"{name}{marker}: {text}")
    if type == "checkpoint":
        return one_line(f"{str(payload.get('commit', ''))[:10]} {payload.get('message', '')}")
    if type == "merge":
        merged = f"{payload.get('branch')} into {payload.get('into')}"
        summary = summary_line(str(payload.get("summary") or ""))
        return one_line(f"{merged}: {summary}" if summary else merged)
    if type in ("branch_summary", "compaction"):
        return summary_line(payload.get("text") or "") or f"({type})"
    if type == "label":
        return one_line(f"{payload.get('label')} -> {str(payload.get('target', ''))[:10]}")
    if type == "sweep":
        runs = payload.get("runs") or []
        return one_line(
            f"{payload.get('id')}: {count_of(len(runs), 'run')} of {payload.get('prompt', '')}"
        )
    return one_line(payload.get("text") or "") or f"({type})"


def entry_json(entry: Entry) -> dict[str, Any]:
    """An entry as the tree's JSON lists it: id, parent, type, branch and a one-line text."""
    return {
        "id": entry.id,
        "parent": entry.parent,
        "type": entry.type,
        "branch": entry.branch,
        "text": entry_text(entry.type, entry.payload),
    }


def encode_entry(type: EntryType, payload: dict[str, Any], branch: str, timestamp: float) -> bytes:
    """The commit message of a new entry."""
    record = {"type": type, "branch": branch, "timestamp": timestamp, "payload": payload}
    subject = f"{type}: {entry_text(type, payload)}".encode(errors="replace")
    return subject + b"\n\n" + json_bytes(record) + b"\n"


def decode_entry(commit: str, parent: str | None, message: str) -> Entry:
    """Rebuild an entry from its commit id, first parent and commit message."""
    _, _, body = message.partition("\n\n")
    try:
        record = json.loads(body)
        return Entry(
            id=commit,
            parent=parent,
            type=cast(EntryType, record["type"]),
            payload=record["payload"],
            timestamp=float(record["timestamp"]),
            branch=record["branch"],
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise WorkbenchError(
            f"conversation entry {commit[:12]} is not a workbench entry: {exc}",
            f"inspect it with `git show {commit[:12]}`; refs under refs/workbench/ are written "
            "by workbench only",
        ) from exc
