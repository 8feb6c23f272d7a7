"""Packages whose `__init__` only gathers their submodules' names, loaded name by name.

A generated SDK's packages (the OpenAI SDK's `openai.types` and `openai.resources`: about 800
modules) have `__init__`s made of nothing but `from .submodule import Name as Name` lines, so a
caller that needs one type or one API resource runs every sibling's module: litellm's import ran
780 of them. For the packages under a prefix given to `defer`, such an `__init__` is read instead
of run, and each name it would bind is imported from its submodule when first asked for (PEP
562's module `__getattr__`). `import package.submodule` needs only the package's `__path__`.

What a caller sees stays what the `__init__` would have given:
- an `__init__` with anything else in it (code, a star import, a name that is also a
  submodule's) runs as usual, so a new SDK version can make the import slower, never different;
- a name the `__init__` imports its submodule for gives that submodule;
- any other name (`__all__` of a star import, a submodule's sibling imported on the way, a
  missing one) first loads every name of the table; the package then holds what the `__init__`
  would have bound, and answers the name as it would have (AttributeError when it has none).
"""

from __future__ import annotations
import __future__

import ast
import importlib
import importlib.abc
import importlib.machinery
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

_lock = threading.Lock()


@dataclass(frozen=True)
class _Table:
    """What an `__init__` of re-exports binds: each name's submodule and attribute there."""

    names: dict[str, tuple[str, str]]
    bound: dict[str, Any]
    """Names bound to a value, not an import: `__all__` (a list of strings) and `__future__`'s."""

    @property
    def submodules(self) -> set[str]:
        """The submodules the `__init__` imports, which it so binds on the package."""
        return {module.split(".")[0] for module, _ in self.names.values()}


def _table(source: str, locations: Sequence[str]) -> _Table | None:
    """The table of an `__init__` made only of relative re-exports, else None."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    names: dict[str, tuple[str, str]] = {}
    bound: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # a docstring
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            bound |= {a.asname or a.name: getattr(__future__, a.name) for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            if any(alias.name == "*" for alias in node.names):
                return None
            names |= {a.asname or a.name: (node.module, a.name) for a in node.names}
        elif _is_all(node):
            assert isinstance(node, ast.Assign)
            bound["__all__"] = ast.literal_eval(node.value)
        else:
            return None
    if names.keys() & _entries(locations):
        return None  # a name that is also a submodule's: which one wins depends on the order
    return _Table(names, bound)


def _is_all(node: ast.stmt) -> bool:
    """`__all__ = [...]` of string constants."""
    return (
        isinstance(node, ast.Assign)
        and [getattr(target, "id", None) for target in node.targets] == ["__all__"]
        and isinstance(node.value, ast.List)
        and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.value.elts)
    )


def _entries(locations: Sequence[str]) -> set[str]:
    """Every name a submodule of the package could have (a superset: `py.typed` gives `py`)."""
    found: set[str] = set()
    for location in locations:
        try:
            found |= {entry.name.split(".")[0] for entry in Path(location).iterdir()}
        except OSError:
            continue
    return found


class _ReadInit(importlib.abc.Loader):
    """Loads a package by reading its `__init__`'s table, or by running it when it has none."""

    def __init__(self, loader: importlib.abc.InspectLoader) -> None:
        self.loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        spec = module.__spec__
        source = self.loader.get_source(module.__name__)
        locations = (spec.submodule_search_locations if spec else None) or []
        table = _table(source, locations) if source is not None else None
        if table is None:
            self.loader.exec_module(module)
            return
        module.__dict__.update(table.bound)

        def missing(name: str) -> Any:
            """PEP 562's hook: only names the package does not have yet come here."""
            if name in table.names:
                return _bind(module, name, table.names[name])
            if name in table.submodules:
                return importlib.import_module(f"{module.__name__}.{name}")
            for each, where in table.names.items():
                _bind(module, each, where)
            module.__dict__.pop("__getattr__", None)  # all there: a package like any other
            try:
                return module.__dict__[name]
            except KeyError:
                raise AttributeError(
                    f"module {module.__name__!r} has no attribute {name!r}"
                ) from None

        module.__dict__["__getattr__"] = missing


def _bind(module: ModuleType, name: str, where: tuple[str, str]) -> Any:
    """`from .submodule import attribute as name`, done now."""
    submodule, attribute = where
    value = getattr(importlib.import_module(f"{module.__name__}.{submodule}"), attribute)
    module.__dict__[name] = value
    return value


class _Finder(importlib.abc.MetaPathFinder):
    """Finds the packages under the prefixes given to `defer` as the path would, read by
    `_ReadInit`; every other module is left to the finders after it."""

    def __init__(self) -> None:
        self.prefixes: tuple[str, ...] = ()

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(self.prefixes) or not any(
            fullname == prefix or fullname.startswith(f"{prefix}.") for prefix in self.prefixes
        ):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        loader = spec.loader if spec is not None else None
        if spec is None or spec.submodule_search_locations is None:
            return spec  # a module, or nothing: as the path finder has it
        if isinstance(loader, importlib.abc.InspectLoader):
            spec.loader = _ReadInit(loader)
        return spec


_finder = _Finder()


def defer(prefix: str) -> None:
    """Read rather than run the re-exporting `__init__` of `prefix` and of every package under
    it that is imported from now on (see the module docstring)."""
    with _lock:
        if prefix in _finder.prefixes:
            return
        _finder.prefixes = (*_finder.prefixes, prefix)
        if _finder not in sys.meta_path:
            sys.meta_path.insert(0, _finder)
