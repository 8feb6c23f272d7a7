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

OWN_KEYS = ("model", "prompt", "system_prompt_append")
"""Keys a run takes as options of its own rather than as settings."""
NOT_YET = {"skills": "choosing a run's skills comes with the next increment of sweeps"}
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

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "text": self.text,
            "model": self.model,
            "prompt": self.prompt,
            "system_prompt_append": self.system_prompt_append,
            "settings": self.settings,
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
    try:
        value = json.loads(text)
    except ValueError:
        value = text
    types = SETTINGS_KEYS[key]
    if isinstance(value, bool) and bool not in types:
        value = text
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
        if str in types:
            return text
        wanted = " or ".join(t.__name__ for t in types)
        raise UsageError(f"--variant {key}={text}: {key} takes a {wanted}", None)
    return value


def _prompt(text: str) -> str:
    """`@file` reads the question from a file; anything else is the question itself."""
    if not text.startswith("@"):
        return text
    try:
        return Path(text[1:]).expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"--variant prompt={text}: {exc}", "name a readable text file") from exc


def _name(pairs: list[tuple[str, str]], taken: set[str]) -> str:
    """`model-b`, `enforcer.mode-off`: the values of the variant, short enough for a branch."""
    words = [value.rsplit("/", 1)[-1] if key != "prompt" else "prompt" for key, value in pairs]
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
        if not sep or not key:
            raise UsageError(
                f"--variant {text!r}: each part is KEY=VALUE",
                "for example: --variant model=openai/gpt-4.1,enforcer.mode=off",
            )
        if key in NOT_YET:
            raise UsageError(f"--variant {key}=...: not yet offered", NOT_YET[key])
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
    )


def parse_variants(texts: list[str]) -> list[Variant]:
    """Every `--variant`, or one variant of the defaults when none is given."""
    variants: list[Variant] = []
    for text in texts:
        variants.append(parse_variant(text, {v.name for v in variants}))
    return variants or [Variant("default", "")]
