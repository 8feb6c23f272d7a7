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
one hold: the first to begin sets them, the last to end puts them back.

And some packages' `__init__` imports every submodule to re-export their names, though a caller
needs one: the OpenAI SDK's `openai.resources` loads all of the API's resources (admin, evals,
realtime, ...; 0.6 s) when a chat client asks for `openai.resources.chat`. `defer_init(package)`
runs such an `__init__` only when something asks the package for a name it does not have;
importing one of its submodules needs only the package's `__path__`, and asking for a submodule
by name imports that one (what the `__init__` would have bound to the name: a test checks it).
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import threading
from collections.abc import Iterator, Sequence
from types import ModuleType
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


class _DeferredInit(importlib.abc.Loader):
    """Loads a package with its `__init__` held back until a missing name is asked for."""

    def __init__(self, loader: importlib.abc.Loader) -> None:
        self.loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        def missing(name: str) -> Any:
            """PEP 562's hook: only names the module does not have come here."""
            submodule = f"{module.__name__}.{name}"
            if importlib.util.find_spec(submodule) is not None:
                return importlib.import_module(submodule)
            self._initialize(module, missing)
            return getattr(module, name)

        module.__dict__["__getattr__"] = missing

    def _initialize(self, module: ModuleType, hook: object) -> None:
        """Run the `__init__` once, under the import system's lock of the module and marked as
        initializing (so that another thread's `import` of it waits for the end, as for any
        module being imported; within, it is a partly initialized module as usual)."""
        spec = module.__spec__
        with _import_lock_of(module.__name__):
            if module.__dict__.get("__getattr__") is not hook:
                return  # run already
            del module.__dict__["__getattr__"]
            if spec is not None:
                spec._initializing = True  # type: ignore[attr-defined]  # the import system's
            try:
                self.loader.exec_module(module)
            finally:
                if spec is not None:
                    spec._initializing = False  # type: ignore[attr-defined]


def _import_lock_of(name: str) -> contextlib.AbstractContextManager[object]:
    """The lock the import system holds while it imports `name` (its deadlock detection too)."""
    manager = getattr(importlib.import_module("importlib._bootstrap"), "_ModuleLockManager", None)
    return manager(name) if manager is not None else contextlib.nullcontext()


class _DeferringFinder(importlib.abc.MetaPathFinder):
    """Finds the packages named to `defer_init` as the path would, with `_DeferredInit`."""

    def __init__(self) -> None:
        self.packages: set[str] = set()

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.packages:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None or spec.submodule_search_locations is None:
            return None  # not a package found on the path: imported as usual
        spec.loader = _DeferredInit(spec.loader)
        return spec


_finder = _DeferringFinder()


def defer_init(package: str) -> None:
    """Hold back `package`'s `__init__` (see the module docstring) when it is imported later."""
    with _lock:
        if package in sys.modules or package in _finder.packages:
            return
        _finder.packages.add(package)
        if _finder not in sys.meta_path:
            sys.meta_path.insert(0, _finder)
