"""Read a frontmatter's YAML: the fields, the line of every key, and what went wrong.

Uses libyaml's C loader where PyYAML has it. Lines are lines of SKILL.md: the frontmatter starts
on line 2, after the opening `---`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

try:
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # PyYAML built without libyaml
    _Loader = yaml.SafeLoader

_YAML_HINT = "quote values that contain `: `, ` #` or start with `[`, `{`, `*`, `&` or `!`"
# Errors the YAML loader raises on hostile input besides YAMLError (bad dates, deep nesting).
_YAML_FAILURES = (yaml.YAMLError, ValueError, TypeError, OverflowError, RecursionError)

Problem = tuple[str, int, str, str | None]
"""(rule id, line, message, hint)"""


@dataclass
class Frontmatter:
    """The fields (None when they could not be read), key lines and problems of one frontmatter.

    `field_lines` has each top-level key and each key under `metadata` as `metadata.<key>`;
    `delegate_lines` has each delegates-to target written as a list item.
    """

    fields: dict[Any, Any] | None = None
    field_lines: dict[str, int] = field(default_factory=dict)
    delegate_lines: dict[str, int] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)


def read_frontmatter(yaml_text: str) -> Frontmatter:
    """Parse the text between the two `---` lines."""
    read = Frontmatter()
    if not yaml_text.strip():
        read.fields = {}
        return read
    loader = _Loader(yaml_text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except _YAML_FAILURES as exc:
        lines = yaml_text.split("\n")
        line, message = _yaml_error(exc, len(lines) - 1)
        text = lines[line - 2] if 0 <= line - 2 < len(lines) else ""
        tabbed = "\t" in text[: len(text) - len(text.lstrip())]
        hint = "indent with spaces, not tabs" if tabbed else _YAML_HINT
        read.problems.append(("yaml-invalid", line, f"invalid YAML: {message}", hint))
        return read
    finally:
        loader.dispose()
    if data is None:
        read.fields = {}
    elif not isinstance(data, dict):
        message = f"the frontmatter is a {_kind(data)}, not a mapping of fields"
        read.problems.append(
            ("frontmatter-not-mapping", 2, message, "write one `key: value` per line")
        )
    else:
        read.fields = data
        _record_lines(node, read)
    return read


def _yaml_error(exc: Exception, yaml_lines: int) -> tuple[int, str]:
    """The file line and text of a YAML error. An error found only at the end of the frontmatter
    (an unclosed bracket) is placed where the unfinished construct began."""
    problem = getattr(exc, "problem", None)
    if problem is None:
        return 2, str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    mark = getattr(exc, "problem_mark", None)
    context = getattr(exc, "context", None)
    context_mark = getattr(exc, "context_mark", None)
    if context_mark is not None and (mark is None or mark.line >= yaml_lines):
        mark = context_mark
    line = mark.line + 2 if mark is not None else 2
    return line, f"{context}: {problem}" if context else problem


def _kind(value: object) -> str:
    return "list" if isinstance(value, list) else f"single value ({type(value).__name__})"


def _record_lines(node: yaml.MappingNode, read: Frontmatter) -> None:
    """Fill the key and target lines from the YAML node tree; report repeated keys."""
    for key, value in node.value:
        if not isinstance(key, yaml.ScalarNode):
            continue
        _record_key(key.value, key, read)
        if key.value == "metadata" and isinstance(value, yaml.MappingNode):
            for sub_key, sub_value in value.value:
                if isinstance(sub_key, yaml.ScalarNode):
                    _record_key(f"metadata.{sub_key.value}", sub_key, read)
                    if sub_key.value == "delegates-to":
                        _record_delegate_lines(sub_value, read)
        elif key.value == "delegates-to":
            _record_delegate_lines(value, read)


def _record_key(name: str, key: yaml.ScalarNode, read: Frontmatter) -> None:
    line = key.start_mark.line + 2
    if name in read.field_lines:
        message = f"`{name}` is set twice; the last one wins"
        read.problems.append(("key-duplicate", line, message, None))
    read.field_lines[name] = line


def _record_delegate_lines(node: yaml.Node, read: Frontmatter) -> None:
    if isinstance(node, yaml.SequenceNode):
        for item in node.value:
            if isinstance(item, yaml.ScalarNode):
                read.delegate_lines.setdefault(item.value, item.start_mark.line + 2)
