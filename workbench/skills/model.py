"""The records skill logic works with: a parsed skill and a finding about it."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from workbench.skills.skill_file import read_body

Layer = Literal["atom", "molecule", "compound"]
LAYERS: tuple[Layer, ...] = ("compound", "molecule", "atom")
"""Top to bottom: a compound delegates to molecules, a molecule to atoms."""

LAYER_RANK: dict[str | None, int] = {**{layer: rank for rank, layer in enumerate(LAYERS)}, None: 3}
"""Sort key of a layer, top first; unlayered skills (None) last."""

LAYER_BELOW: dict[str, Layer] = {"compound": "molecule", "molecule": "atom"}
LAYER_ABOVE: dict[str, Layer] = {"molecule": "compound", "atom": "molecule"}

Severity = Literal["error", "warning"]


def as_path(text: str) -> Path:
    """`Path(text)`, for the absolute, normal paths the parse cache holds. On Python 3.11 it is
    built from its parts directly, four times faster than parsing them again (a warm lint of
    10,000 skills makes 10,000); other versions, and any other path, take the usual way."""
    if (
        _FROM_PARTS is None
        or not text.startswith("/")
        or text.endswith(("/", "/.", "/.."))
        or "//" in text
        or "/./" in text
        or "/../" in text
    ):
        return Path(text)
    path = _FROM_PARTS("", "/", ["/", *text[1:].split("/")])
    path._str = text  # its str(), which pathlib would otherwise join again on first use
    return path  # type: ignore[no-any-return]  # pathlib's private constructor is untyped


_FROM_PARTS = (
    getattr(type(Path()), "_from_parsed_parts", None)
    if sys.version_info[:2] == (3, 11) and os.sep == "/"
    else None
)


@dataclass(frozen=True)
class Diagnostic:
    """One finding: `path:line: severity rule message`, with an optional hint."""

    rule: str
    severity: Severity
    path: Path
    line: int
    message: str
    hint: str | None = None
    skill: str | None = None


@dataclass(frozen=True)
class Reference:
    """A relative path written in a skill's body (`../atom-x/SKILL.md`), with its line."""

    target: str
    line: int


@dataclass
class Skill:
    """A parsed skill folder.

    `name` is the declared name, or the folder's name when the frontmatter has none (so that an
    imperfect skill still loads and can be listed). `layer` is None for an ordinary, unlayered
    skill. `field_lines` maps each top-level frontmatter key to its line in SKILL.md, and each key
    under `metadata` as `metadata.<key>`. `has_frontmatter` is False when no mapping of fields
    could be read (the parser reported why), so field rules do not pile up on that one cause.
    `delegate_lines` gives the line of each delegation target written as a list item.
    `references` and `interaction_rules` are what the linter needs from the body, found while
    parsing: the relative paths it names, and whether it states the two human-interaction rules
    (one question at a time; lettered options with a recommended one and a free-form choice;
    checked for molecules and compounds only).

    The body can be large, so a pickled Skill (the parse cache) leaves it out; it is read again
    from SKILL.md on first use.
    """

    name: str
    path: Path
    description: str = ""
    layer: Layer | None = None
    delegates_to: tuple[str, ...] = ()
    standalone: bool = False
    frontmatter: dict[str, Any] = field(default_factory=dict)
    body: str = field(default_factory=str, repr=False)
    body_line: int = 1
    field_lines: dict[str, int] = field(default_factory=dict)
    has_frontmatter: bool = True
    references: tuple[Reference, ...] = ()
    delegate_lines: dict[str, int] = field(default_factory=dict)
    interaction_rules: tuple[bool, bool] = (False, False)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state.pop("body", None)
        state["path"] = str(self.path)  # one string unpickles faster than a Path's parts
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state["path"] = as_path(state["path"])
        self.__dict__.update(state)

    def __getattr__(self, name: str) -> Any:
        """Only called for attributes not set: the body of an unpickled skill, read on demand."""
        if name != "body":
            raise AttributeError(name)
        self.body = read_body(self.path)
        return self.body

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def offered_to_model(self) -> bool:
        """Whether the system prompt lists it: not with `disable-model-invocation: true` (it is
        still reachable as `/skill:name`), nor without a description to choose it by."""
        hidden = str(self.frontmatter.get("disable-model-invocation")).lower() == "true"
        return bool(self.description) and not hidden

    def line_of(self, key: str, default: int = 1) -> int:
        """The line of a frontmatter key (top-level, else under `metadata`), or `default`."""
        lines = self.field_lines
        return lines.get(key) or lines.get(f"metadata.{key}") or default

    def line_of_delegate(self, target: str) -> int:
        """The line where `target` is named in delegates-to (the key's line for the string form)."""
        return self.delegate_lines.get(target) or self.line_of("delegates-to")


def user_invocable(skill: Skill) -> bool:
    """Whether the user is offered the skill as `/skill:NAME`: not with Claude Code's
    `user-invocable: false` (written as a boolean or as the text `false`, any case). The model
    may still be offered it; that is `disable-model-invocation`'s business."""
    return str(skill.frontmatter.get("user-invocable", "")).lower() != "false"
