"""The text the conversation tree writes: entry summaries and drafted commit messages."""

from __future__ import annotations

from workbench.agent.store import Entry
from workbench.sessions.store.entries import decode_entry, encode_entry, entry_text
from workbench.sessions.workspaces.commit_message import (
    commit_prompt,
    entries_since_checkpoint,
    format_commit_message,
)
from workbench.sessions.workspaces.files import FileChange


def test_entry_summaries_are_one_readable_line() -> None:
    assert entry_text("user", {"text": "\n\n  fix the parser\nplease"}) == "fix the parser"
    assert entry_text(
        "assistant", {"text": "", "tool_calls": [{"name": "read"}, {"name": "bash"}]}
    ) == ("calls read, bash")
    assert entry_text("tool_result", {"tool_name": "bash", "text": "boom", "is_error": True}) == (
        "bash (error): boom"
    )
    assert entry_text("user", {"text": "tab\there\x00nul"}) == "tab here nul"
    assert len(entry_text("user", {"text": "x" * 500})) == 72
    assert entry_text("checkpoint", {"commit": "a" * 40, "message": "Add x\n\nbody"}) == (
        "aaaaaaaaaa Add x"
    )


def test_summaries_read_as_their_first_sentence_not_their_heading() -> None:
    goal_first = (
        "## Goal\n\nthe notes file was added. It lists the keys.\n\n## Progress\n- [x] done"
    )
    assert entry_text("merge", {"branch": "try-b", "into": "main", "summary": goal_first}) == (
        "try-b into main: the notes file was added"
    )
    listed = "## Goal\n---\n- [ ] Port the parser to the new API\n- keep the old one"
    assert entry_text("branch_summary", {"text": listed}) == "Port the parser to the new API"
    assert entry_text("compaction", {"text": "# Summary\n1. Is it fast? Yes."}) == "Is it fast?"
    assert entry_text("merge", {"branch": "a", "into": "main", "summary": "## Goal\n"}) == (
        "a into main"
    )
    assert entry_text("merge", {"branch": "a", "into": "main", "summary": None}) == "a into main"
    assert entry_text("branch_summary", {"text": "## Goal"}) == "(branch_summary)"
    long = entry_text("merge", {"branch": "a", "into": "main", "summary": "## Goal\n" + "w " * 80})
    assert len(long) == 72 and long.startswith("a into main: w w") and long.endswith("…")


def test_an_entry_round_trips_through_its_commit_message() -> None:
    message = encode_entry("label", {"target": "b" * 40, "label": "start"}, "main", 12.5)
    assert message.decode().startswith("label: start -> bbbbbbbbbb\n\n{")
    entry = decode_entry("c" * 40, "d" * 40, message.decode())
    assert entry == Entry(
        "c" * 40, "d" * 40, "label", {"target": "b" * 40, "label": "start"}, 12.5, "main"
    )


def test_a_json_draft_becomes_purpose_changes_result() -> None:
    reply = (
        '```json\n{"subject": "Add a template", "purpose": "Easier to scan.",'
        ' "changes": ["Add t.md"], "result": "Done."}\n```'
    )
    assert format_commit_message(reply) == (
        "Add a template\n\nPurpose: Easier to scan.\n\nChanges:\n- Add t.md\n\nResult: Done.\n"
    )


def test_a_prose_draft_is_used_as_written() -> None:
    assert format_commit_message("Fix the parser\n\nIt crashed on empty input.") == (
        "Fix the parser\n\nIt crashed on empty input.\n"
    )


def test_the_prompt_covers_only_the_conversation_since_the_last_checkpoint() -> None:
    edit = {"name": "edit", "arguments": {"path": "a.py"}}
    path = [
        Entry("1", None, "user", {"text": "old task"}),
        Entry("2", "1", "checkpoint", {"commit": "c", "message": "old"}),
        Entry("3", "2", "user", {"text": "new task"}),
        Entry("4", "3", "assistant", {"text": "", "tool_calls": [edit]}),
    ]
    since = entries_since_checkpoint(path)
    assert [e.id for e in since] == ["3", "4"]
    prompt = commit_prompt(since, [FileChange("a.py", "modified", True)], " a.py | 2 +-")
    assert "USER: new task" in prompt and "old task" not in prompt
    assert 'edit({"path": "a.py"})' in prompt
    assert "modified: a.py" in prompt and "a.py | 2 +-" in prompt
