"""Finding a question asked in the skills' options format, so the app can offer a quick pick.

The interaction rule of the example skills: 2-4 lettered options, one per line, the best one
marked `(recommended)`, and a last, free-form choice:

    A) Merge now (recommended)
    B) Ask for another review first
    C) Other: type your own answer

The last block of such lines in a reply is the question (letters in order from A).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

OPTION_LINE = re.compile(r"^\s*(?:>\s*)?(?:[-*]\s+)?\**([A-H])\)\**\s+(.+?)\s*$")
RECOMMENDED = re.compile(r"\s*\(recommended\)\s*", re.IGNORECASE)
FREE_FORM = re.compile(r"^(other|something else|type your own|your own)\b", re.IGNORECASE)
MIN_CHOICES, MAX_CHOICES = 2, 6


@dataclass(frozen=True)
class Choice:
    letter: str
    text: str
    recommended: bool
    free_form: bool

    @property
    def answer(self) -> str:
        """What is sent when this choice is picked."""
        return f"{self.letter}) {self.text}"


def _block_choices(lines: list[tuple[str, str]]) -> list[Choice] | None:
    letters = [letter for letter, _ in lines]
    if letters != [chr(ord("A") + i) for i in range(len(letters))]:
        return None
    if not MIN_CHOICES <= len(lines) <= MAX_CHOICES:
        return None
    return [
        Choice(
            letter,
            RECOMMENDED.sub(" ", text).strip(),
            bool(RECOMMENDED.search(text)),
            bool(FREE_FORM.match(text)),
        )
        for letter, text in lines
    ]


def find_choices(text: str) -> list[Choice] | None:
    """The options of the last lettered block in `text`, or None when there is none."""
    blocks: list[list[tuple[str, str]]] = []
    current: list[tuple[str, str]] = []
    for line in [*text.splitlines(), ""]:
        match = OPTION_LINE.match(line)
        if match:
            current.append((match.group(1), match.group(2)))
        elif current:
            blocks.append(current)
            current = []
    for block in reversed(blocks):
        found = _block_choices(block)
        if found is not None:
            return found
    return None


def preselected(choices: list[Choice]) -> int:
    """The index of the recommended choice (the first one when none is marked)."""
    return next((i for i, c in enumerate(choices) if c.recommended), 0)
