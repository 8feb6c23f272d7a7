"""tiktoken's `cl100k_base` encoding, registered before litellm's import and built at first use.

litellm's import asks tiktoken for `cl100k_base` (`litellm_core_utils.default_encoding`), and
building it reads and decodes its 100,000-line rank file and makes tiktoken's tokenizer: about
0.3 s, a tenth of the import. A call counts no tokens (litellm's counter is off:
`litellm_client`), so `register()` puts an encoding in tiktoken's registry that builds itself
when an attribute it lacks is first asked for, from the same constructor tiktoken would use
(the same rank file: litellm points tiktoken at its bundled copy before asking). It is a
`tiktoken.Encoding`, so it passes for one everywhere, copies and pickles included: a copy made
before the build is one too and builds itself as well.
"""

from __future__ import annotations

import contextlib
import importlib
import threading
from typing import Any

from tiktoken import registry
from tiktoken.core import Encoding

NAME = "cl100k_base"
_lock = threading.Lock()


def _constructor() -> Any:
    """tiktoken's own constructor of `cl100k_base` (kwargs for `Encoding`), None if none."""
    try:
        openai_public = importlib.import_module("tiktoken_ext.openai_public")  # no types shipped
    except ImportError:
        return None
    constructors: object = getattr(openai_public, "ENCODING_CONSTRUCTORS", None)
    return constructors.get(NAME) if isinstance(constructors, dict) else None


class LazyEncoding(Encoding):
    """`cl100k_base`, with everything but its name filled in by its first use."""

    def __init__(self, **state: Any) -> None:
        if state:  # a copy of an unregistered one, made by tiktoken's own `__setstate__`
            super().__init__(**state)
        else:  # the build is `__getattr__`'s
            self.name = NAME

    def __getattr__(self, attribute: str) -> Any:
        """Only attributes the instance lacks come here: before the build, all but `name`."""
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        with _lock:
            if "_core_bpe" not in self.__dict__:
                self.__dict__.update(vars(Encoding(**_constructor()())))
        return object.__getattribute__(self, attribute)


def register() -> None:
    """Register the lazy `cl100k_base` unless tiktoken has one (or is not the one we know)."""
    encodings: object = getattr(registry, "ENCODINGS", None)
    if not isinstance(encodings, dict) or _constructor() is None:
        return
    with getattr(registry, "_lock", None) or contextlib.nullcontext():  # tiktoken's own
        encodings.setdefault(NAME, LazyEncoding())
