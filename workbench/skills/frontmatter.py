"""Read a frontmatter's YAML: the fields, the line of every key, and what went wrong.

Uses libyaml's C loader where PyYAML has it. Lines are lines of SKILL.md: the frontmatter starts
on line 2, after the opening `---`.

Values are the text the author wrote: `yes`, `on`, `123`, `1.0` and `2024-01-01` stay strings
(PyYAML's YAML 1.1 would make booleans, numbers and dates of them); only `true`/`false` and an
empty value or `null` keep their YAML 1.2 meaning. A frontmatter is walked as events before it is
built: nesting deeper than `MAX_DEPTH` (libyaml's composer recurses, and crashes on 50,000 levels)
or aliases that would expand past `MAX_NODES` (a 1 KB "billion laughs") are one problem, never a
crash or a hang.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, ClassVar

import yaml

try:
    _Base: type = yaml.CSafeLoader
except AttributeError:  # PyYAML built without libyaml
    _Base = yaml.SafeLoader

MAX_DEPTH = 64
"""Nesting levels a frontmatter may have (real ones use three or four)."""
MAX_NODES = 100_000
"""Values a frontmatter may hold once its aliases are expanded."""


class _TextLoader(_Base):  # type: ignore[misc]  # a base chosen at import time: libyaml's or not
    """The safe loader with plain scalars kept as text, but for booleans and null."""

    yaml_implicit_resolvers: ClassVar[dict[str, list[tuple[str, re.Pattern[str]]]]] = {}


_TextLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
_TextLoader.add_implicit_resolver(
    "tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""]
)
_STR, _BOOL, _NULL = "tag:yaml.org,2002:str", "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null"
_MAP, _SEQ = "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"
_IMPLICIT_TAGS = {
    **dict.fromkeys(("true", "True", "TRUE", "false", "False", "FALSE"), _BOOL),
    **dict.fromkeys(("~", "null", "Null", "NULL", ""), _NULL),
}
"""The two resolvers above as one lookup: what `_TextLoader.resolve` answers for plain text."""


def _resolve(self: Any, kind: type, value: Any, implicit: tuple[bool, bool]) -> str:
    """PyYAML's `Resolver.resolve` for the text loader, without its loop over regexes: libyaml
    asks it once per value, and a frontmatter is nearly all plain values."""
    if kind is yaml.ScalarNode:
        return (implicit[0] and _IMPLICIT_TAGS.get(value)) or _STR
    return _MAP if kind is yaml.MappingNode else _SEQ


_TextLoader.resolve = _resolve

if _Base is not yaml.SafeLoader:

    class _TextParser(yaml.cyaml.CParser):  # type: ignore[misc, name-defined]  # exists with libyaml
        """libyaml's parser and composer alone, with the text loader's resolver: the constructor
        and resolver a full loader sets up for every file are needed only by `_construct`'s
        rare fallback, which makes its own."""

        resolve = _resolve

        def descend_resolver(self, parent: Any, index: Any) -> None:
            """No path resolvers: nothing to track on the way down."""

        def ascend_resolver(self) -> None:
            """Nor on the way up."""

else:
    _TextParser = _TextLoader  # type: ignore[misc]  # the pure-Python parser, for the C one

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
    if not yaml_text or yaml_text.isspace():
        read.fields = {}
        return read
    too_big = _beyond_bounds(yaml_text)
    if too_big is not None:
        read.problems.append(("yaml-too-complex", too_big[0], too_big[1], _BOUNDS_HINT))
        return read
    loader = _TextParser(yaml_text)
    try:
        node = loader.get_single_node()
        data = _construct(node) if node is not None else None
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


_BOOL_WORDS = {"true": True, "false": False}
_BUILDING = object()


class _Unusual(Exception):
    """A node the quick builder leaves to PyYAML's constructor."""


def _construct(node: yaml.Node) -> Any:
    """The document's value, as PyYAML's safe constructor would build it. Frontmatter is plain
    text, booleans and nulls in mappings and lists: that is built here directly, several times
    faster than the constructor's generic dispatch. Anything else (an explicit tag, a merge key,
    a list or mapping as a key, a node that holds itself) goes to the constructor, which builds
    it or reports it exactly as before."""
    try:
        return _build(node, {})
    except _Unusual:
        return yaml.constructor.SafeConstructor().construct_document(node)


def _build(node: yaml.Node, built: dict[int, Any]) -> Any:
    kind, tag = node.__class__, node.tag
    if kind is yaml.ScalarNode:
        if tag == _STR:
            return node.value
        if tag == _NULL:
            return None
        if tag == _BOOL and node.value.lower() in _BOOL_WORDS:
            return _BOOL_WORDS[node.value.lower()]
        raise _Unusual
    done = built.get(id(node))  # an alias: the same node, built once, shared as PyYAML does
    if done is not None:
        if done is _BUILDING:
            raise _Unusual
        return done
    built[id(node)] = _BUILDING
    if kind is yaml.MappingNode and tag == _MAP:
        value: Any = {}
        for key_node, value_node in node.value:
            key = _build(key_node, built)
            if isinstance(key, (dict, list)):
                raise _Unusual
            value[key] = _build(value_node, built)
    elif kind is yaml.SequenceNode and tag == _SEQ:
        value = [_build(item, built) for item in node.value]
    else:
        raise _Unusual
    built[id(node)] = value
    return value


_BOUNDS_HINT = "write plain `key: value` fields; frontmatter needs no deep nesting or aliases"


# What may follow a block indicator (`- `, `? `, `: `): YAML's blanks and line breaks.
_BLANKS = (" ", "\n", "\t", "\x85", "\u2028", "\u2029")


def _surely_within_bounds(yaml_text: str) -> bool:
    """Whether the text is certainly within bounds, told from a few character counts, so that
    nearly every frontmatter skips the walk over its events. Without `*` there is no alias, and
    short text holds few values (an event takes at least a character or two). Every collection
    starts at an indicator (`[`, `{`, or `-`, `?`, `:` before a blank; in flow text `:` may come
    right after a quoted key), so fewer indicators than MAX_DEPTH cannot nest that deep."""
    if "*" in yaml_text or len(yaml_text) * 2 >= MAX_NODES:
        return False
    text = yaml_text + "\n"
    starts = text.count("[") + text.count("{")
    if starts:
        starts += text.count(":")
    # ASCII text without a tab has only spaces and line feeds for blanks
    blanks = _BLANKS if "\t" in text or not text.isascii() else _BLANKS[:2]
    for indicator in "-?:":
        if indicator in text:
            for blank in blanks:
                starts += text.count(indicator + blank)
    return starts < MAX_DEPTH


def _beyond_bounds(yaml_text: str) -> tuple[int, str] | None:
    """(line, message) when the YAML nests deeper than MAX_DEPTH or expands past MAX_NODES."""
    return None if _surely_within_bounds(yaml_text) else _walk_bounds(yaml_text)


def _walk_bounds(yaml_text: str) -> tuple[int, str] | None:
    """`_beyond_bounds` found from libyaml's events, which it makes without recursion, before
    anything is built. Syntax errors are left to the loader, which reports them with their line."""
    open_sizes: list[int] = []  # the expanded values so far in each open collection
    open_anchors: list[str | None] = []
    anchored: dict[str, int] = {}
    try:
        for event in yaml.parse(yaml_text, Loader=_Base):
            line = (event.start_mark.line if event.start_mark else 0) + 2
            if isinstance(event, yaml.CollectionStartEvent):
                if len(open_sizes) == MAX_DEPTH:
                    return line, f"the frontmatter nests deeper than {MAX_DEPTH} levels"
                open_sizes.append(0)
                open_anchors.append(event.anchor)
                continue
            if isinstance(event, yaml.CollectionEndEvent):
                size, anchor = 1 + open_sizes.pop(), open_anchors.pop()
            elif isinstance(event, yaml.ScalarEvent):
                size, anchor = 1, event.anchor
            elif isinstance(event, yaml.AliasEvent):
                size, anchor = anchored.get(event.anchor or "", 1), None
            else:
                continue
            if anchor is not None:
                anchored[anchor] = size
            if open_sizes:
                open_sizes[-1] += size
                size = open_sizes[-1]
            if size > MAX_NODES:
                return line, f"the frontmatter expands to more than {MAX_NODES:,} values"
    except yaml.YAMLError:
        return None
    return None


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
