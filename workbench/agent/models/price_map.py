"""A model's context window and prices from litellm's bundled model map, read as a file.

Opening a session needs them (the status line, compaction's budget, costs), but importing litellm
takes seconds: an editor's `session/new` would wait for it. The map ships inside the litellm
package (`model_prices_and_context_window_backup.json`, the copy litellm itself reads with
`LITELLM_LOCAL_MODEL_COST_MAP`), so it is found with `find_spec` and read without the import.
How a model is asked to cache needs litellm's provider tables and is settled at its first call.
"""

from __future__ import annotations

import functools
import importlib.util
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from workbench.agent.models.client import ModelInfo

MAP_FILE = "model_prices_and_context_window_backup.json"


@functools.cache
def _entries() -> dict[str, Any]:
    spec = importlib.util.find_spec("litellm")
    folders = spec.submodule_search_locations if spec else None
    if not folders:
        return {}
    try:
        loaded = json.loads((Path(next(iter(folders))) / MAP_FILE).read_bytes())
    except (OSError, ValueError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def entry(name: str) -> dict[str, Any]:
    """The map's entry for `name` ({} when it has none): the name itself, or a name given as
    `provider/model` under `model` when the map files it under that provider."""
    entries = _entries()
    found = entries.get(name)
    if found is None and "/" in name:
        provider, bare = name.split("/", 1)
        candidate = entries.get(bare)
        if isinstance(candidate, dict) and candidate.get("litellm_provider") == provider:
            found = candidate
    return found if isinstance(found, dict) else {}


def priced(info: ModelInfo, known: dict[str, Any]) -> ModelInfo:
    """`info` with the window and prices of the map entry `known`."""
    window = known.get("max_input_tokens") or known.get("max_tokens")
    prices = (known.get("input_cost_per_token"), known.get("output_cost_per_token"))
    if not any(prices):  # litellm makes up entries priced 0 for models it guesses at
        prices = (None, None)  # (a free local model is priced 0 in the settings)
    return replace(
        info,
        context_window=int(window) if window else info.context_window,
        input_cost=prices[0],
        output_cost=prices[1],
        cache_read_cost=known.get("cache_read_input_token_cost"),
        cache_write_cost=known.get("cache_creation_input_token_cost"),
    )


def listed_info(name: str) -> ModelInfo:
    """`name`'s window and prices as the map lists them (cache style not yet known)."""
    return priced(ModelInfo(name=name), entry(name))
