"""The keys and commands tables of the docs (and the README's keys) say what the app does."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.tui.keys import KEYS
from workbench.tui.slash import COMMANDS

ROOT = Path(__file__).resolve().parents[3]
APP_PAGE = ROOT / "docs" / "app.md"


def table(page: Path, heading: str) -> list[tuple[str, str]]:
    """The rows of the first table under `heading` in `page`."""
    lines = page.read_text(encoding="utf-8").splitlines()
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
            rows.append((key.replace("\\|", "|"), what))  # a | in a cell is written \|
    return rows


@pytest.mark.parametrize(
    ("page", "heading"), [(APP_PAGE, "## Keys"), (ROOT / "README.md", "### Keys")]
)
def test_the_keys_table_is_the_apps_keys(page: Path, heading: str) -> None:
    assert table(page, heading) == KEYS


def test_the_commands_table_is_the_apps_commands() -> None:
    assert table(APP_PAGE, "## Commands") == [(f"`{c.usage}`", c.help) for c in COMMANDS]
