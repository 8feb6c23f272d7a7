"""Parse one SKILL.md into a `Skill` and the problems found while reading it.

Never raises on bad input: an unreadable file, bytes that are not UTF-8, a missing or unclosed
frontmatter, invalid YAML or a frontmatter that is not a mapping each become a `Diagnostic` with
the file and line (YAML error lines are mapped to lines of SKILL.md). CRLF line ends and a
byte-order mark are read as if they were not there. Our fields are read both top-level and in the
spec-clean form under `metadata` (`layer: molecule`, `delegates-to: "a b"`, `standalone: "true"`).
"""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path
from typing import Any

from workbench.skills.body import find_references, interaction_rules
from workbench.skills.model import LAYERS, Diagnostic, Layer, Skill, as_path
from workbench.skills.rules import finding
from workbench.skills.skill_file import decode, read_bytes, split

LARGE_FILE_BYTES = 1 << 20
_LIST_SEPARATORS = re.compile(r"[\s,]+")
_MISSING = object()
_FLAG_WORDS = {"true": True, "yes": True, "on": True, "false": False, "no": False, "off": False}


class _Reader:
    """Collects the findings of one file while it is read; they get the skill's name at the end."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.findings: list[tuple[str, int, str, str | None]] = []

    def report(self, rule: str, line: int, message: str, hint: str | None = None) -> None:
        self.findings.append((rule, line, message, hint))

    def diagnostics(self, skill: str | None) -> list[Diagnostic]:
        return [finding(r, self.path, line, m, h, skill) for r, line, m, h in self.findings]


def parse_skill(path: str | os.PathLike[str]) -> tuple[Skill | None, list[Diagnostic]]:
    """Read SKILL.md at `path`. The Skill is None only when the file cannot be read at all."""
    path = path if isinstance(path, Path) else as_path(os.fspath(path))
    reader = _Reader(path)
    try:
        data = read_bytes(path)
    except OSError as exc:
        reason = "a symlink loop" if exc.errno == errno.ELOOP else (exc.strerror or str(exc))
        hint = _unreadable_hint(exc)
        reader.report("file-unreadable", 1, f"cannot read SKILL.md: {reason}", hint)
        return None, reader.diagnostics(path.parent.name)
    skill = _parse_bytes(data, path, reader)
    return skill, reader.diagnostics(skill.name)


def _unreadable_hint(exc: OSError) -> str:
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "make the file readable (chmod a+r)"
    if exc.errno == errno.ELOOP:
        return "point the link at a real file"
    return "check that SKILL.md is a regular file"


def _parse_bytes(data: bytes, path: Path, reader: _Reader) -> Skill:
    if len(data) > LARGE_FILE_BYTES:
        reader.report(
            "file-too-large",
            1,
            f"SKILL.md is {len(data) / LARGE_FILE_BYTES:.1f} MiB; an agent reads it whole",
            "move reference material into files next to SKILL.md and link them",
        )
    text = decode(data, reader.report)
    folder_name = os.path.basename(os.path.dirname(str(path)))  # noqa: PTH119, PTH120 - no Path
    frontmatter = split(text, reader.report)
    if frontmatter is None:
        return Skill(name=folder_name, path=path, body=text, has_frontmatter=False)
    yaml_text, body, body_line = frontmatter
    skill = Skill(name=folder_name, path=path, body=body, body_line=body_line)
    skill.references = find_references(body, body_line)
    from workbench.skills.frontmatter import read_frontmatter  # PyYAML loads on first parse only

    read = read_frontmatter(yaml_text)
    for problem in read.problems:
        reader.report(*problem)
    skill.field_lines, skill.delegate_lines = read.field_lines, read.delegate_lines
    if read.fields is None:
        skill.has_frontmatter = False
        return skill
    fields = skill.frontmatter = read.fields
    _read_public_fields(skill, fields, reader)
    _read_our_fields(skill, fields, reader)
    if skill.layer in ("molecule", "compound"):
        skill.interaction_rules = interaction_rules(body)
    return skill


def _read_public_fields(skill: Skill, fields: dict[Any, Any], reader: _Reader) -> None:
    name = fields.get("name")
    if isinstance(name, str) and name.strip():
        skill.name = name
    elif name is not None and not isinstance(name, str):
        reader.report("field-invalid", skill.line_of("name"), "`name` must be text")
    description = fields.get("description")
    if isinstance(description, str):
        skill.description = description.strip()
    elif description is not None:
        reader.report("field-invalid", skill.line_of("description"), "`description` must be text")
    for key in ("license", "compatibility"):
        if fields.get(key) is not None and not isinstance(fields[key], str):
            reader.report("field-invalid", skill.line_of(key), f"`{key}` must be text")
    tools = fields.get("allowed-tools")
    listed = isinstance(tools, list) and all(isinstance(t, str) for t in tools)
    if tools is not None and not isinstance(tools, str) and not listed:
        reader.report(
            "field-invalid",
            skill.line_of("allowed-tools"),
            "`allowed-tools` must be text (`Read Grep`) or a list of tool names",
        )


def _read_our_fields(skill: Skill, fields: dict[Any, Any], reader: _Reader) -> None:
    metadata = fields.get("metadata", {})
    if not isinstance(metadata, dict):
        if metadata is not None:
            reader.report(
                "field-invalid",
                skill.line_of("metadata"),
                "`metadata` must be a mapping",
                "write `metadata:` then indented `key: value` lines",
            )
        metadata = {}
    layer = _our_field(skill, fields, metadata, "layer", reader)
    if layer is not _MISSING:
        skill.layer = _layer(layer, skill, reader)
    targets = _our_field(skill, fields, metadata, "delegates-to", reader)
    if targets is not _MISSING:
        skill.delegates_to = _names(targets, skill, reader)
    standalone = _our_field(skill, fields, metadata, "standalone", reader)
    if standalone is not _MISSING:
        skill.standalone = _flag(standalone, skill, reader)


def _our_field(
    skill: Skill, fields: dict[Any, Any], metadata: dict[Any, Any], key: str, reader: _Reader
) -> Any:
    """The value of one of our fields, top-level first; setting it in both places is reported."""
    top = fields.get(key, _MISSING)
    nested = metadata.get(key, _MISSING)
    if top is _MISSING:
        return nested
    if nested is not _MISSING:
        reader.report(
            "field-invalid",
            skill.field_lines.get(f"metadata.{key}", 1),
            f"`{key}` is set both top-level and under metadata; the top-level value is used",
            "keep one of the two forms",
        )
    return top


def _layer(value: Any, skill: Skill, reader: _Reader) -> Layer | None:
    layer = value.strip() if isinstance(value, str) else value
    if layer in LAYERS:
        return layer
    hint = "use lowercase" if isinstance(layer, str) and layer.lower() in LAYERS else None
    reader.report(
        "layer-invalid",
        skill.line_of("layer"),
        f"layer is {value!r}; it must be atom, molecule or compound",
        hint or "remove `layer` for an ordinary skill",
    )
    return None


def _names(value: Any, skill: Skill, reader: _Reader) -> tuple[str, ...]:
    """delegates-to as names: a list of names, or one string of names separated by spaces."""
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(dict.fromkeys(n for n in _LIST_SEPARATORS.split(value) if n))
    if not isinstance(value, list):
        reader.report(
            "field-invalid",
            skill.line_of("delegates-to"),
            f"`delegates-to` must be a list of skill names, not {type(value).__name__}",
            'write `delegates-to: [a, b]` or, under metadata, `delegates-to: "a b"`',
        )
        return ()
    names: list[str] = []
    for item in value:
        if isinstance(item, str) and item.strip():
            names.append(item.strip())
        else:
            reader.report(
                "field-invalid",
                skill.line_of("delegates-to"),
                f"`delegates-to` holds {item!r}, which is not a skill name",
            )
    return tuple(dict.fromkeys(names))


def _flag(value: Any, skill: Skill, reader: _Reader) -> bool:
    """A boolean, or one written as text. The words are YAML 1.1's booleans, so that quoting
    a value (as the spec-clean form does) never changes what it means: `yes` and `"yes"` agree."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _FLAG_WORDS:
        return _FLAG_WORDS[value.strip().lower()]
    if value is None:
        return False
    reader.report(
        "field-invalid",
        skill.line_of("standalone"),
        f"standalone is {value!r}; it must be true or false",
        'write `standalone: "true"`',
    )
    return False
