"""The layering of design.md §2, checked over the AST of every module (lazy imports included)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "workbench"

# Each part of the package and its layer; a module may import only lower layers or its own part.
# The foundation modules of one layer (0 and 2) may import each other.
LAYERS: dict[str, int] = {
    "__init__": 0,
    "errors": 0,
    "config": 0,
    "skills": 1,
    "messages": 2,
    "tool": 2,
    "hooks": 2,
    "extension_api": 2,
    "enforcer": 3,
    "agent": 4,
    "sessions": 5,
    "runtime": 6,
    "commands": 7,
    "modes": 7,
    "tui": 7,
    "cli": 8,
    "__main__": 9,
}
SHARED_LAYERS = {0, 2}


def _part(module: str) -> str | None:
    """`workbench.skills.graph` -> `skills`; None for anything outside the package."""
    names = module.split(".")
    if names[0] != "workbench":
        return None
    return names[1] if len(names) > 1 else "__init__"


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)


def _imports(source: str, module: str, is_package: bool) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in the source, at any depth."""
    package = module if is_package else module.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                name = f"{base}.{node.module}" if node.module else base
            else:
                name = node.module or ""
            found.append((node.lineno, name))
            found.extend((node.lineno, f"{name}.{alias.name}") for alias in node.names)
    return found


def _violations(source: str, module: str, is_package: bool = False) -> list[str]:
    """Every import of `module` that breaks the layering, as `line: what`."""
    own = _part(module)
    assert own in LAYERS, f"give {module} a layer"
    own_layer = LAYERS[own]
    problems = []
    for line, name in _imports(source, module, is_package):
        top = name.split(".")[0]
        if top == "textual" and own != "tui":
            problems.append(f"{line}: imports Textual outside workbench/tui")
        if top in {"litellm", "git"} and own == "tui":
            problems.append(f"{line}: the TUI imports {top}")
        target = _part(name)
        if target is None or target not in LAYERS or target == own:
            continue
        layer = LAYERS[target]
        if not (layer < own_layer or (layer == own_layer and layer in SHARED_LAYERS)):
            problems.append(f"{line}: {own} (layer {own_layer}) imports {name} (layer {layer})")
    return problems


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_every_part_has_a_layer() -> None:
    parts = {_part(_module_name(p)) for p in MODULES}
    assert parts <= set(LAYERS), f"give these a layer: {parts - set(LAYERS)}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_down(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    assert _violations(source, _module_name(path), path.name == "__init__.py") == []


def test_checker_catches_bad_imports() -> None:
    """The checker must fail on bad imports, or it proves nothing."""
    lazy_upward = "def f():\n    from workbench.runtime import Workbench\n"
    assert _violations(lazy_upward, "workbench.skills.graph") == [
        "2: skills (layer 1) imports workbench.runtime (layer 6)",
        "2: skills (layer 1) imports workbench.runtime.Workbench (layer 6)",
    ]
    assert _violations("from .. import runtime\n", "workbench.skills.graph")
    assert _violations("import textual.app\n", "workbench.agent.loop")
    assert _violations("import litellm\n", "workbench.tui.app")
    assert _violations("from workbench.hooks import HookBus\n", "workbench.tool") == []
    assert _violations("from workbench.modes import json\n", "workbench.tui.app")
