"""Control characters are shown as their pictures; newlines, tabs and other text stay."""

from __future__ import annotations

from workbench.visible import visible


def test_each_control_character_is_shown_as_its_picture() -> None:
    assert visible("a\x1b]0;t\x07b\rc\x00\x7f") == "a␛]0;t␇b␍c␀␡"
    assert visible("\x9b2J\x9d") == "␛[2J␛]", "a C1 character shows as ESC and its 7-bit form"
    assert visible("line\n\tindented é ✓") == "line\n\tindented é ✓"
