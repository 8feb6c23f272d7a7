"""Drafting a commit message from the conversation: the prompt, and the shape of the result.

A commit records an action, not a mood: its message says the purpose, the changes and the result.
The runtime hands `commit_prompt(...)` to the model and `format_commit_message(reply)` turns the
reply into the final message, whether the model answered in the asked-for JSON or in prose.
"""

from __future__ import annotations

import json
import re
from typing import Any

from workbench.agent.store import Entry
from workbench.sessions.workspaces.files import FileChange
from workbench.text import one_line

PROMPT_BUDGET = 12_000
"""Characters of conversation given to the model; the newest part is kept."""
SUBJECT_WIDTH = 72

INSTRUCTIONS = """\
Write the git commit message for the file changes below, from the conversation that made them.
Reply with JSON only, no code fence:
{"subject": "<imperative summary, at most 72 characters>",
 "purpose": "<why the change was made, one or two sentences>",
 "changes": ["<one concrete change per item>", "..."],
 "result": "<what works now, or what was verified>"}
State facts from the conversation and the file list; do not invent tests or results."""


def entries_since_checkpoint(path: list[Entry]) -> list[Entry]:
    """The entries after the last checkpoint on `path` (all of it when there is none)."""
    for index in range(len(path) - 1, -1, -1):
        if path[index].type == "checkpoint":
            return path[index + 1 :]
    return path


def _transcript_line(entry: Entry) -> str | None:
    payload = entry.payload
    if entry.type == "user":
        return f"USER: {payload.get('text', '')}"
    if entry.type == "assistant":
        calls = [
            f"{c.get('name')}({json.dumps(c.get('arguments', {}), ensure_ascii=False)[:200]})"
            for c in payload.get("tool_calls") or []
        ]
        text = payload.get("text", "")
        return "ASSISTANT: " + "\n".join(part for part in (text, *calls) if part)
    if entry.type == "tool_result":
        return f"TOOL {payload.get('tool_name')}: {one_line(payload.get('text', ''), 300)}"
    if entry.type in ("compaction", "branch_summary"):
        return f"SUMMARY OF EARLIER WORK: {payload.get('text', '')}"
    return None


def commit_prompt(entries: list[Entry], files: list[FileChange], diffstat: str) -> str:
    """The prompt that asks the model for a purpose / changes / result message."""
    lines = [line for line in map(_transcript_line, entries) if line]
    transcript = "\n\n".join(lines)
    if len(transcript) > PROMPT_BUDGET:
        transcript = "[... earlier conversation cut ...]\n" + transcript[-PROMPT_BUDGET:]
    file_list = "\n".join(f"{f.change}: {f.path}" for f in files) or "(none listed)"
    return (
        f"{INSTRUCTIONS}\n\n## Files to commit\n{file_list}\n\n## Diff summary\n{diffstat}\n\n"
        f"## Conversation since the last commit\n{transcript or '(no conversation)'}\n"
    )


def _parse_json_reply(reply: str) -> dict[str, Any] | None:
    text = re.sub(r"^```(?:json)?\s*|\s*```$", "", reply.strip())
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) and data.get("subject") else None


def format_commit_message(reply: str) -> str:
    """The commit message from the model's reply: subject, then purpose, changes and result.

    A reply that is not the asked-for JSON is used as written (first line as the subject), so a
    model that ignores the format still yields a usable message.
    """
    data = _parse_json_reply(reply)
    if data is None:
        lines = reply.strip().splitlines()
        subject = one_line(lines[0] if lines else "Update files", SUBJECT_WIDTH)
        body = "\n".join(lines[1:]).strip()
        return f"{subject}\n\n{body}\n" if body else f"{subject}\n"
    parts = [one_line(str(data["subject"]), SUBJECT_WIDTH), ""]
    if data.get("purpose"):
        parts += [f"Purpose: {str(data['purpose']).strip()}", ""]
    changes = data.get("changes")
    if isinstance(changes, list) and changes:
        parts += ["Changes:", *(f"- {str(c).strip()}" for c in changes), ""]
    if data.get("result"):
        parts += [f"Result: {str(data['result']).strip()}", ""]
    return "\n".join(parts).rstrip() + "\n"
