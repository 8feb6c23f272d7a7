"""docs/lint-rules.md lists exactly the rules the linter has, with their severities and examples."""

from __future__ import annotations

import re
from pathlib import Path

from workbench.skills.rules import RULES

PAGE = Path(__file__).resolve().parents[3] / "docs" / "lint-rules.md"


def test_the_docs_list_every_rule_with_its_severity_and_example() -> None:
    text = PAGE.read_text(encoding="utf-8")
    table = text.split("# Lint rules", 1)[1]
    rows = re.findall(r"^\| `([a-z-]+)` \| (error|warning) \| [^|]+ \| (.+) \|$", table, re.M)
    assert [(rule, severity) for rule, severity, _ in rows] == [
        (rule.id, rule.severity) for rule in RULES.values()
    ]
    assert [example for _, _, example in rows] == [rule.example for rule in RULES.values()]
