"""F1's help laid out for the width it gets: columns on a wide screen, stacked at 80x24 (never
a description one word per line), with the legend of the panels' marks and the enforcer modes."""

from __future__ import annotations

import io

from rich.console import Console

from workbench.tui.keys import KEYS, LEGEND
from workbench.tui.reports import help_report


def shown(width: int) -> list[str]:
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    console.print(help_report(KEYS, {}, LEGEND))
    return console.export_text().splitlines()


def test_at_80_columns_each_key_is_stacked_over_its_whole_description() -> None:
    lines = shown(66)  # the help view's width inside an 80-column terminal
    enter = lines.index("Enter")
    assert lines[enter + 1].strip().startswith("send; while the agent works, steer: it hears")
    words = [line.strip() for line in lines if line.strip()]
    single = [w for w in words if " " not in w and not w.startswith(("/", "F", "Ctrl", "Alt"))]
    assert len(single) < 12, f"descriptions broken a word a line: {single}"
    assert all(len(line) <= 66 for line in lines)


def test_on_a_wide_screen_keys_and_descriptions_share_a_line() -> None:
    lines = shown(140)
    assert any(line.startswith("Enter") and "send; while the agent works" in line for line in lines)
    commit = [line for line in lines if line.startswith("/commit [message]")]
    assert commit and "commit the branch" in commit[0]


def test_the_legend_names_the_panels_marks_and_the_enforcer_modes() -> None:
    text = "\n".join(shown(66))
    assert "Legend" in text
    for mark in ("◇", "●  ◐", "▶", "⚠N", "enforcer warn", "enforcer block", "enforcer off"):
        assert mark in text, mark
