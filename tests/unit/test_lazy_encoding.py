"""tiktoken's `cl100k_base` registered lazily before litellm's import (`lazy_encoding`): nothing
is built until it is used, and then it encodes as tiktoken's own, copies and pickles included."""

from __future__ import annotations

import copy
import importlib.util
import pickle
from pathlib import Path

import pytest
from tiktoken import get_encoding, registry
from tiktoken.core import Encoding

from workbench.agent.models import lazy_encoding

HELLO_WORLD = [15339, 1917]  # "hello world" in cl100k_base


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """A registry of our own, and tiktoken pointed at litellm's bundled rank files (as litellm's
    import points it), so that no test downloads them."""
    spec = importlib.util.find_spec("litellm")
    assert spec is not None and spec.submodule_search_locations
    bundled = Path(spec.submodule_search_locations[0], "litellm_core_utils", "tokenizers")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(bundled))
    monkeypatch.setattr(registry, "ENCODINGS", {})


def test_the_registered_encoding_is_built_at_its_first_use() -> None:
    lazy_encoding.register()
    encoding = get_encoding("cl100k_base")
    assert isinstance(encoding, Encoding) and vars(encoding) == {"name": "cl100k_base"}
    assert encoding.encode("hello world") == HELLO_WORLD
    assert encoding.decode(HELLO_WORLD) == "hello world" and encoding.n_vocab > 100_000


def test_copies_made_before_the_build_encode_too() -> None:
    lazy_encoding.register()
    registered = get_encoding("cl100k_base")
    unregistered = lazy_encoding.LazyEncoding()
    for copied in (
        pickle.loads(pickle.dumps(registered)),
        copy.deepcopy(registered),
        copy.deepcopy(unregistered),
    ):
        assert copied.encode("hello world") == HELLO_WORLD
