"""Packages read rather than run (`workbench.processes.lazy_packages`): a caller sees what the
package's `__init__` would have given, while only the submodules it asks for are imported."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from workbench.processes import lazy_packages

TABLE = '''"""A package of re-exports, as an SDK generates them."""

from __future__ import annotations

from .a import A as A
from .b import B, Other as Renamed
from .inner.c import C as C

__all__ = ["A", "B"]
'''


@pytest.fixture
def make(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], str]]:
    """Makes a package named after the test with the given `__init__`, and forgets it after."""
    name = f"lazy_{tmp_path.name.replace('-', '_')}"
    monkeypatch.syspath_prepend(str(tmp_path))

    def made(init: str) -> str:
        folder = tmp_path / name
        (folder / "inner").mkdir(parents=True)
        (folder / "__init__.py").write_text(init)
        (folder / "a.py").write_text("from . import helper\nclass A:\n    pass\n")
        (folder / "helper.py").write_text("")
        (folder / "b.py").write_text("class B:\n    pass\nclass Other:\n    pass\n")
        (folder / "inner" / "__init__.py").write_text("")
        (folder / "inner" / "c.py").write_text("class C:\n    pass\n")
        lazy_packages.defer(name)
        return name

    yield made
    for module in [m for m in sys.modules if m == name or m.startswith(f"{name}.")]:
        del sys.modules[module]


def loaded(name: str) -> set[str]:
    return {m.removeprefix(f"{name}.") for m in sys.modules if m.startswith(f"{name}.")}


def test_a_name_imports_only_its_own_submodule(make: Callable[[str], str]) -> None:
    name = make(TABLE)
    package = importlib.import_module(name)
    assert loaded(name) == set(), "the __init__ imported nothing"
    assert package.Renamed is sys.modules[f"{name}.b"].Other
    assert loaded(name) == {"b"}
    assert package.C is importlib.import_module(f"{name}.inner.c").C
    assert package.inner is sys.modules[f"{name}.inner"], "a submodule the __init__ imports"
    assert package.__all__ == ["A", "B"] and loaded(name) == {"b", "inner", "inner.c"}


def test_a_submodule_imports_without_its_siblings(make: Callable[[str], str]) -> None:
    name = make(TABLE)
    b = importlib.import_module(f"{name}.b")
    assert loaded(name) == {"b"} and sys.modules[name].B is b.B


def test_any_other_name_loads_the_whole_table_then_answers_as_the_init_would(
    make: Callable[[str], str],
) -> None:
    name = make(TABLE)
    package = importlib.import_module(name)
    assert package.helper is sys.modules[f"{name}.helper"], "imported on the way by `a`"
    assert loaded(name) == {"a", "helper", "b", "inner", "inner.c"}
    with pytest.raises(AttributeError, match="has no attribute 'missing'"):
        _ = package.missing
    exec(f"from {name} import *", star := dict[str, object]())
    assert set(star) - {"__builtins__"} == {"A", "B"}


def test_a_star_import_without_all_gets_every_name(make: Callable[[str], str]) -> None:
    name = make(TABLE.replace('__all__ = ["A", "B"]\n', ""))
    exec(f"from {name} import *", star := dict[str, object]())
    assert {"A", "B", "Renamed", "C", "a", "b", "inner", "helper"} <= set(star)


@pytest.mark.parametrize(
    "init",
    [
        TABLE + "RAN = True\n",
        TABLE.replace("from .a import A as A", "from .a import A as a"),  # a submodule's name
        "from .a import *\nRAN = True\n",
    ],
    ids=["code", "a submodule's name", "star"],
)
def test_an_init_with_anything_else_runs_as_usual(make: Callable[[str], str], init: str) -> None:
    name = make(init)
    package = importlib.import_module(name)
    assert "__getattr__" not in vars(package)
    assert "a" in loaded(name), "the __init__ ran at the import"
