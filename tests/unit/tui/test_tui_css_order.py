"""No CSS of ours depends on a widget's place among its siblings.

Textual restyles every child that a `:first-child`, `:last-child`, `:odd`, `:even`,
`:first-of-type` or `:last-of-type` rule could apply to, with all it holds, each time a sibling is
mounted. A reply streams in as Markdown blocks mounted one after another, so one such rule made
every flush of a long reply restyle all of it, and keystrokes waited for that."""

from __future__ import annotations

import re
from pathlib import Path

import workbench.tui

ORDER_PSEUDO_CLASS = re.compile(r":(first-child|last-child|odd|even|first-of-type|last-of-type)\b")
DEFAULT_CSS = re.compile(r'DEFAULT_CSS = """(.*?)"""', re.DOTALL)


def our_css() -> list[tuple[str, str]]:
    """(file, CSS) for every stylesheet and every widget's DEFAULT_CSS in the app."""
    root = Path(workbench.tui.__file__).parent
    sheets = [(path.name, path.read_text()) for path in sorted(root.rglob("*.tcss"))]
    for path in sorted(root.rglob("*.py")):
        sheets += [(path.name, css) for css in DEFAULT_CSS.findall(path.read_text())]
    return sheets


def test_no_rule_of_ours_depends_on_sibling_order() -> None:
    sheets = our_css()
    assert any(name == "reply.py" for name, _ in sheets), "the reply's own CSS is read"
    found = [(name, match) for name, css in sheets for match in ORDER_PSEUDO_CLASS.findall(css)]
    assert found == []
