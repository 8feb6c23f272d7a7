"""What the model sees of a branch: its messages, and a compact message for each checkpoint and
merge entry.

Checkpoint and merge entries are records of the tree, not messages, so without this the model
would never learn that its work was committed, or what a merged branch brought back. They are
rendered from the entry's payload whenever the branch's messages are built (never stored twice),
with the entry's id as the message id, so compaction's `first_kept_id` stays valid. A merge reads
as a branch summary ("This conversation returned from another branch, ..."), a checkpoint as a
workbench notice. Label entries are for people and stay out.
"""

from __future__ import annotations

from typing import Any

from workbench.agent.store import Entry
from workbench.messages import Message, Role
from workbench.text import count_of, one_line

FILES_SHOWN = 10


def branch_messages(entries: list[Entry]) -> list[Message]:
    """The messages of a path of entries, as the agent keeps them and the model reads them."""
    messages = []
    for entry in entries:
        message = entry.message() or entry_message(entry)
        if message is not None:
            messages.append(message)
    return messages


def _files(files: list[str]) -> str:
    more = f" and {len(files) - FILES_SHOWN} more" if len(files) > FILES_SHOWN else ""
    return ", ".join(files[:FILES_SHOWN]) + more


def entry_message(entry: Entry) -> Message | None:
    """The compact message standing for a checkpoint or merge entry (None for other entries)."""
    payload = entry.payload
    kind: Role
    if entry.type == "checkpoint":
        commit, subject = str(payload.get("commit", ""))[:10], one_line(payload.get("message", ""))
        text = f"Committed {commit} on branch {entry.branch}: {subject}"
        if payload.get("files"):
            text += f"\nFiles: {_files(payload['files'])}"
        kind = "notice"
    elif entry.type == "merge":
        text = _merge_text(payload)
        kind = "branch_summary"
    else:
        return None
    details: dict[str, Any] = {"entry_type": entry.type}
    if entry.type == "merge":  # what the experiment and its summary cost, counted once here
        details.update({k: payload[k] for k in ("usage", "summary_usage") if payload.get(k)})
    return Message(role=kind, text=text, id=entry.id, details=details, timestamp=entry.timestamp)


def _merge_text(payload: dict[str, Any]) -> str:
    branch, into = payload.get("branch"), payload.get("into")
    lines = [f"Branch {branch} was merged into {into}."]
    if payload.get("commit"):
        files = payload.get("files") or []
        lines.append(
            f"Merge commit {str(payload['commit'])[:10]} changed {count_of(len(files), 'file')}"
            + (f": {_files(files)}" if files else ".")
        )
    else:
        lines.append("No file changes came with it.")
    checkpoints = payload.get("checkpoints") or []
    if checkpoints:
        lines.append("Its commits:")
        lines += [
            f"- {str(c.get('commit'))[:10]} {one_line(str(c.get('message', '')))}"
            for c in checkpoints
        ]
    if payload.get("summary"):
        lines += ["", str(payload["summary"]).strip()]
    return "\n".join(lines)
