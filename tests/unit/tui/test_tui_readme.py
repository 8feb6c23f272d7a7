"""The README's keys and commands tables say what the app does (the app's own tables)."""

from __future__ import annotations

from pathlib import Path

from workbench.tui.keys import KEYS
from workbench.tui.slash import COMMANDS

README = Path(__file__).resolve().parents[3] / "README.md"


def table(heading: str) -> list[tuple[str, str]]:
    """The rows of the first table under `heading` in the README."""
    lines = README.read_text(encoding="utf-8").splitlines()
    start = lines.index(heading)
    rows = []
    for line in lines[start + 1 :]:
        if line.startswith("#"):
            break
        if (
            line.startswith("| ")
            and not line.startswith("| Key |")
            and not line.startswith("| Command |")
        ):
            key, what = line[2:-2].split(" | ", 1)
            rows.append((key, what))
    return rows


def test_the_keys_table_is_the_apps_keys() -> None:
    assert table("### Keys") == KEYS


def test_the_commands_table_is_the_apps_commands() -> None:
    assert table("### Commands") == [(f"`{c.usage}`", c.help) for c in COMMANDS]
