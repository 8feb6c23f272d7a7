"""Quick imports of heavy libraries (`workbench.processes.heavy_imports`): what they change must
not show, except in time. A deferred package answers every name it would have had; models built
late validate as they would have at once; the collector and pydantic's defaults come back."""

from __future__ import annotations

import ast
import gc
import importlib.util
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

from workbench.agent.models.litellm_import import DEFERRED_PACKAGES
from workbench.processes import heavy_imports


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A package whose `__init__` re-exports two submodules and notes that it ran."""
    name = f"deferred_{tmp_path.name.replace('-', '_')}"
    folder = tmp_path / name
    folder.mkdir()
    (folder / "__init__.py").write_text("from .a import A\nfrom .b import B\nINIT_RAN = True\n")
    (folder / "a.py").write_text("class A:\n    pass\n")
    (folder / "b.py").write_text("class B:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    for module in [m for m in sys.modules if m == name or m.startswith(f"{name}.")]:
        del sys.modules[module]


def test_a_deferred_package_runs_its_init_only_when_a_name_is_missing(package: str) -> None:
    heavy_imports.defer_init(package)
    a = importlib.import_module(f"{package}.a")
    deferred = sys.modules[package]
    assert "INIT_RAN" not in vars(deferred) and f"{package}.b" not in sys.modules
    b = deferred.b  # a submodule asked for by name: that one is imported, the init still waits
    assert b is sys.modules[f"{package}.b"] and "INIT_RAN" not in vars(deferred)
    assert deferred.A is a.A and deferred.INIT_RAN is True  # a missing name: the init ran
    with pytest.raises(AttributeError):
        _ = deferred.nothing
    exec(f"from {package} import *", namespace := {})
    assert namespace["B"] is b.B


def test_a_package_imported_already_is_left_as_it_is(package: str) -> None:
    importlib.import_module(package)
    heavy_imports.defer_init(package)
    assert sys.modules[package].INIT_RAN is True


@pytest.mark.parametrize("name", DEFERRED_PACKAGES)
def test_the_deferred_packages_bind_each_submodule_name_to_that_submodule(name: str) -> None:
    """What makes answering a submodule's name without running the `__init__` exact: the
    `__init__` never binds such a name to anything else."""
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.origin and spec.submodule_search_locations
    folder = Path(spec.origin).parent
    submodules = {p.stem for p in folder.glob("*.py")} | {
        p.parent.name for p in folder.glob("*/__init__.py")
    }
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and not (node.level == 1 and node.module is None):
            bound = {alias.asname or alias.name for alias in node.names}
            assert not bound & submodules, (node.module, bound & submodules)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            assert node.id not in submodules
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            assert node.name not in submodules


def test_models_defined_in_a_quick_import_build_when_first_used() -> None:
    assert gc.isenabled()
    with heavy_imports.quick():
        assert not gc.isenabled()

        class Late(BaseModel):
            count: int

    assert gc.isenabled()
    assert not Late.__pydantic_complete__
    assert Late(count="3").count == 3
    with pytest.raises(ValidationError):
        Late(count="three")

    class AtOnce(BaseModel):
        count: int

    assert AtOnce.__pydantic_complete__, "pydantic's own default is back"


def test_overlapping_quick_imports_give_everything_back_at_the_last_end() -> None:
    first, second = heavy_imports.quick(), heavy_imports.quick()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert not gc.isenabled(), "the second import still runs"
    second.__exit__(None, None, None)
    assert gc.isenabled()
