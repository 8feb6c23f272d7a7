"""What the model sees of a branch: checkpoint and merge entries as compact messages."""

from __future__ import annotations

from workbench.agent.models.openai_format import to_openai
from workbench.agent.store import Entry
from workbench.messages import Message
from workbench.runtime.context import branch_messages

USER = Entry("u1", None, "user", Message(role="user", text="fix the parser").to_dict())
CHECKPOINT = Entry(
    "c" * 40,
    "u1",
    "checkpoint",
    {"commit": "a" * 40, "message": "Fix the parser\n\nPurpose: ...", "files": ["src/parse.py"]},
    branch="exp",
)
LABEL = Entry("l1", "c" * 40, "label", {"target": "u1", "label": "start"}, branch="exp")


def merge_entry(**payload: object) -> Entry:
    base = {
        "branch": "exp",
        "into": "main",
        "merged_head": "h",
        "commit": None,
        "files": [],
        "checkpoints": [],
        "summary": "",
    }
    return Entry("m" * 40, "u1", "merge", {**base, **payload}, timestamp=5.0)


def test_a_checkpoint_is_a_notice_named_by_its_entry_and_labels_stay_out() -> None:
    messages = branch_messages([USER, CHECKPOINT, LABEL])
    assert [m.role for m in messages] == ["user", "notice"]
    notice = messages[1]
    assert notice.id == CHECKPOINT.id
    assert notice.text == "Committed aaaaaaaaaa on branch exp: Fix the parser\nFiles: src/parse.py"
    sent = to_openai("system", messages)[-1]
    assert sent == {"role": "user", "content": "[workbench notice]\n" + notice.text}


def test_a_merge_reads_as_a_branch_summary_with_its_commits_and_summary() -> None:
    checkpoints = [{"entry": "c", "commit": "b" * 40, "message": "Fix the parser\n\nbody"}]
    merge = merge_entry(
        commit="d" * 40,
        files=[f"f{n}.py" for n in range(12)],
        checkpoints=checkpoints,
        summary="## Goal\nFix the parser",
    )
    [message] = branch_messages([merge])
    assert (message.role, message.id, message.timestamp) == ("branch_summary", merge.id, 5.0)
    assert message.text == (
        "Branch exp was merged into main.\n"
        "Merge commit dddddddddd changed 12 files: "
        + ", ".join(f"f{n}.py" for n in range(10))
        + " and 2 more\n"
        "Its commits:\n- bbbbbbbbbb Fix the parser\n\n## Goal\nFix the parser"
    )


def test_a_merge_without_file_changes_says_so() -> None:
    [message] = branch_messages([merge_entry(summary="talked it through")])
    assert message.text == (
        "Branch exp was merged into main.\nNo file changes came with it.\n\ntalked it through"
    )
