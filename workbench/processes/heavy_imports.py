"""Importing a heavy library (litellm, the ACP SDK) in a fraction of the time it takes by default.

Most of such an import is spent in two places that do not change what the library does:
- CPython's cyclic collector: the import creates hundreds of thousands of objects that all stay
  alive, and every few thousand of them a collection walks them all again (a third of litellm's
  import). It is paused while the import runs, and what the import made is then moved out of its
  sight (`gc.freeze`), so later full collections do not walk it either.
- pydantic building the validator of every model class as the class is defined: litellm and the
  ACP SDK define about two thousand, a call uses a few dozen. While the import runs, pydantic's
  default for `defer_build` is True (its documented setting for large schemas), so a model is
  built when it is first used. A class that sets `defer_build` itself keeps its own choice.

Both are process-wide, so overlapping imports (a background thread's and the main thread's) share
one hold: the first to begin sets them, the last to end puts them back. (Packages whose
`__init__` loads every submodule: `processes.lazy_packages`.)
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator
from typing import Any

_lock = threading.Lock()
_holders = 0
_collecting = False
_deferring: tuple[dict[str, Any], Any] | None = None


def _pydantic_defaults() -> dict[str, Any] | None:
    """pydantic's table of config defaults, when this pydantic has the one we know."""
    try:
        from pydantic._internal._config import config_defaults
    except ImportError:
        return None
    defaults: object = config_defaults
    if not isinstance(defaults, dict) or "defer_build" not in defaults:
        return None
    return defaults


def _begin() -> None:
    global _holders, _collecting, _deferring
    with _lock:
        _holders += 1
        if _holders > 1:
            return
        _collecting = gc.isenabled()
        gc.disable()
        defaults = _pydantic_defaults()
        if defaults is not None:
            _deferring = (defaults, defaults["defer_build"])
            defaults["defer_build"] = True


def _end() -> None:
    global _holders, _deferring
    with _lock:
        _holders -= 1
        if _holders:
            return
        if _deferring is not None:
            defaults, before = _deferring
            defaults["defer_build"] = before
            _deferring = None
        gc.freeze()
        if _collecting:
            gc.enable()


@contextlib.contextmanager
def quick() -> Iterator[None]:
    """Run the imports in the block with the collector paused and pydantic's builds deferred."""
    _begin()
    try:
        yield
    finally:
        _end()
