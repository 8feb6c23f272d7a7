"""Real token counts for tests: tiktoken's cl100k_base, read offline from the encodings that
litellm ships (no network, and no `import litellm`, which is slow)."""

from __future__ import annotations

import importlib.util
import os
from functools import cache
from pathlib import Path
from typing import Any


@cache
def _encoding() -> Any:
    spec = importlib.util.find_spec("litellm")
    assert spec is not None and spec.submodule_search_locations, "litellm is not installed"
    folder = Path(spec.submodule_search_locations[0]) / "litellm_core_utils" / "tokenizers"
    before = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)
    try:
        import tiktoken

        return tiktoken.get_encoding("cl100k_base")
    finally:  # leave the environment of later tests and their subprocesses as it was
        if before is None:
            del os.environ["TIKTOKEN_CACHE_DIR"]
        else:
            os.environ["TIKTOKEN_CACHE_DIR"] = before


def cl100k(text: str) -> int:
    """How many cl100k_base tokens `text` is."""
    return len(_encoding().encode(text))
