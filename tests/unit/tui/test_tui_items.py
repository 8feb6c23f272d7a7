"""Transcript records built from a branch's messages: tool calls meet their results."""

from __future__ import annotations

from rich.console import Console

from workbench.agent.loop import SKIPPED_FOR_STEERING
from workbench.messages import Message, ToolCall
from workbench.tui.items import ItemBuilder, NoteItem, ReplyItem, ToolItem, UserItem


def build(*messages: Message) -> list:
    builder = ItemBuilder()
    for message in messages:
        builder.add_message(message)
    return builder.items


def test_calls_are_matched_to_results_and_skips_are_told_apart() -> None:
    calls = [
        ToolCall("c1", "read", {"path": "skills/a/SKILL.md"}),
        ToolCall("c2", "bash", {"command": "pytest -x\n  -q"}),
        ToolCall("c3", "edit", {"path": "x.py"}),
    ]
    record = {"skill": "a", "verdict": "violation", "layer": "atom"}
    items = build(
        Message("user", "fix it"),
        Message("assistant", "Reading first.", tool_calls=calls),
        Message("tool_result", "body", tool_call_id="c1", details={"skill_load": record}),
        Message("tool_result", "exit 1", tool_call_id="c2", is_error=True),
        Message("tool_result", SKIPPED_FOR_STEERING, tool_call_id="c3", is_error=True),
    )
    assert [type(i) for i in items] == [UserItem, ReplyItem, ToolItem, ToolItem, ToolItem]
    read, bash, edit = items[2:]
    assert (read.status, bash.status, edit.status) == ("ok", "error", "skipped")
    assert bash.key_argument() == "pytest -x -q"
    header = read.header().plain
    assert "read" in header and "skills/a/SKILL.md" in header and "skill a violation" in header
    assert "skipped: due to queued user message." in edit.header().plain
    read.skill = {**record, "verdict": "ok", "partial": True}
    assert "skill a (partly)" in read.header().plain, "a head or a limited read says so"


def test_a_call_without_a_result_shows_it_never_ran() -> None:
    items = build(Message("assistant", "", tool_calls=[ToolCall("c1", "bash", {"command": "ls"})]))
    assert [type(i) for i in items] == [ToolItem]
    assert items[0].status == "not run" and "never ran" in items[0].header().plain


def test_summaries_are_short_and_aborted_replies_say_so() -> None:
    long_reply = "\n".join(f"line **{n}**" for n in range(10))
    items = build(
        Message("assistant", long_reply),
        Message("assistant", "half a sent", stop_reason="aborted"),
        Message("notice", "enforcer: load a molecule first"),
    )
    reply, aborted, notice = items
    lines = [t.plain for t in reply.summary()]
    assert lines == ["● line 0", "  line 1", "  line 2 …"]
    assert "(aborted)" in aborted.summary()[0].plain
    assert isinstance(notice, NoteItem) and notice.kind == "info"


def test_notices_of_the_enforcer_and_summaries_are_told_apart() -> None:
    record = {"skill": "m", "verdict": "violation"}
    items = build(
        Message(
            "notice", "[skill graph] Skill loading violation: ...", details={"skill_notice": record}
        ),
        Message(
            "branch_summary",
            "Branch b was merged into main.\nmore",
            details={"entry_type": "merge"},
        ),
        Message("branch_summary", "## Goal\ntried X", details={"abandoned_head": "abc"}),
    )
    skill, merged, left = items
    assert skill.kind == "skill"
    assert merged.summary()[0].plain == "≡ Branch b was merged into main.  (+1 line)"
    assert left.text.startswith("Summary of the path left behind:\n## Goal")
    assert not merged.live_full and skill.live_full


def test_a_running_sub_agent_call_shows_a_line_per_child_without_expanding() -> None:
    progress = (
        "parallel: 1 of 2 done, 1 running\n"
        "✓ scout · completed · 1.2k in / 80 out\n"
        "    found it in cli.py\n"
        "… planner · read · 900 in / 20 out\n"
        "    reading the plan"
    )
    item = ToolItem("c1", "subagent", {"tasks": []}, output=progress)
    lines = [line.plain.strip() for line in item.summary()[1:]]
    assert lines == [
        "parallel: 1 of 2 done, 1 running",
        "✓ scout · completed · 1.2k in / 80 out",
        "… planner · read · 900 in / 20 out",
    ]
    item.status = "ok"
    assert len(item.summary()) == 1, "a finished call folds to its header"


def test_a_long_note_wraps_under_its_text_and_shows_no_code_ticks() -> None:
    note = NoteItem(
        "skill",
        "Skill loading violation: load the compound first: `compound-ship-change` then follow it",
        hint="run `git init` and make a first commit before you try again",
    )
    console = Console(width=40, record=True, color_system=None)
    console.print(note.full())
    lines = console.export_text().splitlines()
    assert len(lines) > 3, lines
    icon = lines[0][:2]
    assert lines[0].startswith(icon) and all(line.startswith("  ") for line in lines[1:]), lines
    hint_at = next(i for i, line in enumerate(lines) if "→" in line)
    assert all(line.startswith("    ") for line in lines[hint_at + 1 :]), "the hint hangs too"
    assert "`" not in "".join(lines) and "compound-ship-change" in "".join(lines)


def test_a_tool_header_too_wide_for_its_row_cuts_the_path_not_the_verdict() -> None:
    call = ToolItem(
        "c1", "read", {"path": "skills/molecule-implement-change/SKILL.md"}, status="ok"
    )
    call.skill = {"skill": "molecule-implement-change", "verdict": "violation"}
    call.duration_ms = 40
    whole = call.header().plain
    assert whole.endswith("skill molecule-implement-change violation  <0.1 s")
    fitted = call.header(width=len(whole) - 10).plain
    assert len(fitted) == len(whole) - 10
    assert "SKILL.md" not in fitted and "…" in fitted
    assert fitted.endswith("skill molecule-implement-change violation  <0.1 s")
    narrow = call.header(width=30).plain
    assert narrow.startswith("✓ read  …") and narrow.endswith("violation  <0.1 s"), narrow


def test_a_folded_tool_row_at_80_columns_keeps_its_outcome() -> None:
    """The chat's history draws a folded call in the width it has (78 cells at 80 columns): the
    long argument is cut with "…", the verdict and duration stay on the line."""
    call = ToolItem("c1", "bash", {"command": "pytest -q " + "tests/unit/" * 12}, status="error")
    call.result = "exit code 1: 3 failed"
    call.duration_ms = 2500
    line = call.fitted(78)[0].plain
    assert len(line) == 78 and "…" in line
    assert line.endswith("exit code 1: 3 failed  2.5 s"), line


def test_a_message_of_several_lines_lines_up_under_its_first_line() -> None:
    """Live (and expanded in the history), the second line and a wrapped line start under the
    text, not under the prompt mark."""
    message = UserItem("first line of the question\nsecond line, long enough to wrap here")
    console = Console(width=30, record=True, color_system=None)
    console.print(message.full())
    lines = console.export_text().splitlines()
    assert lines[0].startswith("❯ first line"), lines
    assert len(lines) >= 3 and all(line.startswith("  ") for line in lines[1:]), lines
    assert lines[1].startswith("  second line"), lines
