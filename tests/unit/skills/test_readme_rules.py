"""The README's rule table documents exactly the rules the linter has, with their severities."""

from __future__ import annotations

import re
from pathlib import Path

from workbench.skills.rules import RULES

README = Path(__file__).resolve().parents[3] / "README.md"


def test_readme_lists_every_rule_with_its_severity_and_example() -> None:
    text = README.read_text(encoding="utf-8")
    table = text.split("## Lint rules", 1)[1]
    rows = re.findall(r"^\| `([a-z-]+)` \| (error|warning) \| [^|]+ \| (.+) \|$", table, re.M)
    assert [(rule, severity) for rule, severity, _ in rows] == [
        (rule.id, rule.severity) for rule in RULES.values()
    ]
    assert [example for _, _, example in rows] == [rule.example for rule in RULES.values()]
