"""A sweep's variants: `--variant K=V[,K=V]` read into what each run changes.

A variant changes the model, the question, what is appended to the system prompt, or any settings
key (`enforcer.mode=off`, `compaction.enabled=false`); values are JSON where they parse as JSON
(numbers, booleans, lists), else text. An unknown key is a usage error, found before anything
starts.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.config import SETTINGS_KEYS
from workbench.errors import UsageError

OWN_KEYS = ("model", "prompt", "system_prompt_append", "skills")
"""Keys a run takes as options of its own rather than as settings."""
NAME_PART = re.compile(r"[^A-Za-z0-9._-]+")
MAX_NAME = 24


@dataclass(frozen=True)
class Variant:
    """One variant: a readable name and what it changes (empty: the defaults)."""

    name: str
    text: str
    model: str | None = None
    prompt: str | None = None
    system_prompt_append: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    skills: list[str] | None = None
    """The only skills the run may find (`skills=none`: []); None: the project's as they are."""

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "text": self.text,
            "model": self.model,
            "prompt": self.prompt,
            "system_prompt_append": self.system_prompt_append,
            "settings": self.settings,
            "skills": self.skills,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Variant:
        return cls(
            str(data["name"]),
            str(data.get("text", "")),
            data.get("model"),
            data.get("prompt"),
            data.get("system_prompt_append"),
            dict(data.get("settings") or {}),
            data.get("skills"),
        )

    def nested_settings(self) -> dict[str, Any]:
        """The settings keys as the nested object a settings file holds."""
        nested: dict[str, Any] = {}
        for key, value in self.settings.items():
            *parents, last = key.split(".")
            node = nested
            for part in parents:
                node = node.setdefault(part, {})
            node[last] = value
        return nested


def _value(key: str, text: str) -> Any:
    """The value as JSON when it parses as the key's type (`3`, `false`, `[...]`), else text
    where the key takes text; anything else is a usage error."""
    types = SETTINGS_KEYS[key]
    try:
        value = json.loads(text)
    except ValueError:
        value = text
    if type(value) in types:
        return value
    if str in types:
        return text
    wanted = " or ".join(t.__name__ for t in types)
    raise UsageError(f"--variant {key}={text}: {key} takes a {wanted}", None)


def _prompt(text: str) -> str:
    """`@file` reads the question from a file; anything else is the question itself."""
    if not text.startswith("@"):
        return text
    try:
        return Path(text[1:]).expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"--variant prompt={text}: {exc}", "name a readable text file") from exc


def _word(key: str, value: str) -> str:
    if key == "prompt":
        return "prompt"
    return f"skills-{value}" if key == "skills" else value.rsplit("/", 1)[-1]


def _name(pairs: list[tuple[str, str]], taken: set[str]) -> str:
    """`model-b`, `enforcer.mode-off`: the values of the variant, short enough for a branch."""
    words = [_word(key, value) for key, value in pairs]
    base = NAME_PART.sub("-", "-".join(words)).strip("-.")[:MAX_NAME].strip("-.") or "variant"
    name, n = base, 2
    while name in taken:
        name, n = f"{base}-v{n}", n + 1
    return name


def parse_variant(text: str, taken: set[str]) -> Variant:
    """One `--variant` argument; `taken` holds the names of the variants before it."""
    pairs: list[tuple[str, str]] = []
    for part in text.split(","):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep and pairs and pairs[-1][0] == "skills":  # skills=a,b: the list goes on
            pairs[-1] = ("skills", f"{pairs[-1][1]},{key}")
            continue
        if not sep or not key:
            raise UsageError(
                f"--variant {text!r}: each part is KEY=VALUE",
                "for example: --variant model=openai/gpt-4.1,enforcer.mode=off",
            )
        if key not in OWN_KEYS and key not in SETTINGS_KEYS:
            known = ", ".join([*OWN_KEYS, *sorted(SETTINGS_KEYS)])
            raise UsageError(f"--variant: unknown key {key!r}", f"keys: {known}")
        pairs.append((key, value))
    own = {k: v for k, v in pairs if k in OWN_KEYS}
    settings = {k: _value(k, v) for k, v in pairs if k not in OWN_KEYS}
    return Variant(
        _name(pairs, taken),
        text,
        model=own.get("model"),
        prompt=_prompt(own["prompt"]) if "prompt" in own else None,
        system_prompt_append=own.get("system_prompt_append"),
        settings=settings,
        skills=_skills(own["skills"]) if "skills" in own else None,
    )


def _skills(text: str) -> list[str]:
    """`none`, or skill names separated by commas."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    return [] if names == ["none"] else names


def parse_variants(texts: list[str]) -> list[Variant]:
    """Every `--variant`, or one variant of the defaults when none is given."""
    variants: list[Variant] = []
    for text in texts:
        variants.append(parse_variant(text, {v.name for v in variants}))
    return variants or [Variant("default", "")]
