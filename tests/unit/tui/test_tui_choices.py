"""The quick pick finds questions asked in the skills' options format, and nothing else."""

from __future__ import annotations

from pathlib import Path

from workbench.tui.choices import find_choices, preselected

SKILLS = Path(__file__).resolve().parents[3] / "skills"


def test_the_example_in_the_compound_skill_is_found_with_its_recommendation() -> None:
    text = (SKILLS / "compound-ship-change" / "SKILL.md").read_text(encoding="utf-8")
    found = find_choices(text)
    assert found is not None
    assert [c.letter for c in found] == ["A", "B", "C", "D"]
    assert found[0].text == "Merge now" and found[0].recommended
    assert found[3].free_form and not found[3].recommended
    assert preselected(found) == 0
    assert found[1].answer == "B) Ask for another review first"


def test_the_last_block_is_the_question_and_the_recommendation_is_preselected() -> None:
    reply = (
        "Earlier I considered:\nA) one\nB) two\n\nThe plan is ready. Approve it?\n"
        "A) Approve the plan\nB) Narrow it (recommended)\nC) Other: type your own answer\n"
    )
    found = find_choices(reply)
    assert found is not None
    assert [c.text for c in found] == [
        "Approve the plan",
        "Narrow it",
        "Other: type your own answer",
    ]
    assert preselected(found) == 1


def test_lists_that_are_not_questions_are_ignored() -> None:
    assert find_choices("Steps:\n1) read\n2) edit") is None
    assert find_choices("A) only one option") is None
    assert find_choices("A) first\nC) letters skip") is None
    assert find_choices("no options at all") is None
