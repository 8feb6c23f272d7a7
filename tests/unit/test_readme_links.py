"""The README's links and pictures lead to files that exist (the docs site checks its own)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_relative_link_of_the_readme_leads_to_a_file() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = [t for t in re.findall(r"\]\(([^)#\s]+)", text) if "://" not in t]
    assert "docs/screenshots/idle.svg" in targets and "docs/architecture.md" in targets
    assert [t for t in targets if not (ROOT / t).exists()] == []
