"""The models `/model` offers: the session's recent ones, the configured ones, and the chat models
litellm knows for each provider whose key is in the environment.

litellm's list is read from the price file bundled with the installed package, never by importing
litellm (seconds of start-up): the picker opens at once, and without litellm installed the list
simply has no known models.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from workbench.agent.models.choice import DEMO, KEY_DEFAULTS
from workbench.config import Settings

PRICE_FILE = "model_prices_and_context_window_backup.json"


@dataclass(frozen=True)
class ModelChoice:
    """One model to offer and where it comes from (`recent`, `configured`, `known`)."""

    name: str
    source: str


def model_choices(
    recent: list[str], settings: Settings, env: Mapping[str, str]
) -> list[ModelChoice]:
    """Recent first (the latest at the top), then configured, then known; each name once."""
    configured = settings.get("models", {})
    named = [settings.get("model"), *(configured if isinstance(configured, dict) else ()), DEMO]
    providers = {key.removesuffix("_API_KEY").lower() for key, _ in KEY_DEFAULTS if env.get(key)}
    known = [name for provider in sorted(providers) for name in litellm_models(provider)]
    choices: dict[str, ModelChoice] = {}
    for source, names in (("recent", recent), ("configured", named), ("known", known)):
        for name in names:
            if isinstance(name, str) and name and name not in choices:
                choices[name] = ModelChoice(name, source)
    return list(choices.values())


def litellm_models(provider: str) -> list[str]:
    """The chat models litellm's price file lists for `provider`, as model strings."""
    listed = [
        key
        for key, entry in _price_file().items()
        if isinstance(entry, dict)
        and entry.get("mode") == "chat"
        and entry.get("litellm_provider") == provider
    ]
    return sorted(key if key.startswith(f"{provider}/") else f"{provider}/{key}" for key in listed)


@cache
def _price_file() -> dict[str, object]:
    spec = importlib.util.find_spec("litellm")  # finds the package without importing it
    folders = spec.submodule_search_locations if spec is not None else None
    if not folders:
        return {}
    try:
        data = json.loads((Path(next(iter(folders))) / PRICE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
