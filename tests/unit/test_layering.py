"""The layering of design.md §2, checked over the AST of every module (lazy imports included):
imports point down, no import circle between any two modules, no module over 450 lines, no folder
of more than 20 modules."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "workbench"

# Each part of the package and its layer; a module may import only lower layers or its own part.
# The foundation modules of one layer (0 and 2) may import each other.
LAYERS: dict[str, float] = {
    "__init__": 0,
    "errors": 0,
    "config": 0,
    "paths": 0,
    "trust": 0,
    "redaction": 0,
    "logfile": 0,
    "text": 0,
    "visible": 0,
    "skipped": 0,
    "cpu_wait": 0,
    "skills": 1,
    "messages": 2,
    "tool": 2,
    "sandbox": 2,
    "output_limits": 2,
    "hooks": 2,
    "permission": 2,
    "extension_api": 2,
    "enforcer": 3,
    "processes": 3,
    "agent": 4,
    "sessions": 5,
    # sweeps fork sessions' branches and run children; the front ends (and later the runtime's
    # sweep view) start them.
    "sweeps": 5.5,
    # MCP servers: offered to the agent as tools by the runtime.
    "mcp": 3.5,
    # evals plan a sweep per skill, prepare its worktrees and grade its runs.
    "evals": 5.7,
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


def _from_module(node: ast.ImportFrom, package: str) -> str:
    """The absolute module a `from ... import` names, relative forms resolved in `package`."""
    if not node.level:
        return node.module or ""
    base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
    return f"{base}.{node.module}" if node.module else base


def _imports(source: str, module: str, is_package: bool) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in the source, at any depth."""
    package = module if is_package else module.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            name = _from_module(node, package)
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


# -- circles and size ----------------------------------------------------------------------------

MAX_LINES = 450
# Data and generated files, exempt from the size limit (none today).
LARGE_BY_NATURE: set[str] = set()


def _modules(package: Path) -> dict[str, Path]:
    """Every module of `package` by dotted name (a package by its own name, not `.__init__`)."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _import_graph(package: Path) -> nx.DiGraph:
    """Module -> module edges for every import, at any depth (under TYPE_CHECKING and inside
    functions too). `from pkg import sub` is an edge to the module `pkg.sub` when there is one,
    else to `pkg`; any other name is an edge to the nearest module that holds it."""
    modules = _modules(package)

    def nearest(name: str) -> str:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name

    graph = nx.DiGraph()
    for module, path in modules.items():
        graph.add_node(module)
        package_name = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [nearest(alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                source = _from_module(node, package_name)
                targets = [nearest(f"{source}.{alias.name}") for alias in node.names]
            else:
                continue
            graph.add_edges_from((module, t) for t in targets if t and t != module)
    return graph


def _circles(package: Path) -> list[list[str]]:
    """Each set of modules that import each other, directly or round about."""
    components = nx.strongly_connected_components(_import_graph(package))
    return sorted(sorted(c) for c in components if len(c) > 1)


def test_no_import_circles() -> None:
    assert _circles(PACKAGE) == []


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_module_size(path: Path) -> None:
    if _module_name(path) in LARGE_BY_NATURE:
        return
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{lines} lines: split it by concept"


MAX_MODULES_PER_FOLDER = 20


def _crowded_folders(package: Path) -> dict[str, int]:
    """Each folder of `package` holding more than the limit of modules, with its count."""
    folders = {package, *(p for p in package.rglob("*") if p.is_dir() and p.name != "__pycache__")}
    counts = {f: len(list(f.glob("*.py"))) for f in folders}
    return {
        str(f.relative_to(package.parent)): n
        for f, n in sorted(counts.items())
        if n > MAX_MODULES_PER_FOLDER
    }


def test_no_folder_holds_more_than_twenty_modules() -> None:
    assert _crowded_folders(PACKAGE) == {}, "split it into sub-packages by concept"


def test_folder_checker_catches_a_crowded_folder(tmp_path: Path) -> None:
    """The checker must count a crowded folder, or it proves nothing."""
    modules = {f"sessions/m{i}.py": "" for i in range(MAX_MODULES_PER_FOLDER)}
    crowded = _plant(tmp_path, {"__init__.py": "", "sessions/__init__.py": "", **modules})
    assert _crowded_folders(crowded) == {"workbench/sessions": MAX_MODULES_PER_FOLDER + 1}
    (crowded / "sessions" / "m0.py").unlink()
    assert _crowded_folders(crowded) == {}


def _plant(root: Path, files: dict[str, str]) -> Path:
    package = root / "workbench"
    for name, text in files.items():
        target = package / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return package


def test_circle_checker_catches_planted_circles(tmp_path: Path) -> None:
    """The checker must find circles however the import is hidden, or it proves nothing."""
    hidden = _plant(
        tmp_path / "hidden",
        {
            "__init__.py": "",
            "room/__init__.py": "",
            "room/a.py": "from workbench.room.b import thing\n",
            "room/b.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from workbench.room import c\n"
            ),
            "room/c.py": "def later():\n    from . import a\n",
        },
    )
    assert _circles(hidden) == [["workbench.room.a", "workbench.room.b", "workbench.room.c"]]


def test_from_package_import_submodule_is_an_edge_to_the_submodule(tmp_path: Path) -> None:
    """`from pkg import sub` in pkg/__init__'s own child is no circle with `pkg/__init__`."""
    package = _plant(
        tmp_path / "sub",
        {
            "__init__.py": "",
            "room/__init__.py": "from workbench.room.tool import make\n",
            "room/tool.py": "from workbench.room import helper\nmake = helper.make\n",
            "room/helper.py": "def make():\n    return 1\n",
        },
    )
    assert _circles(package) == []
    # A name defined in `pkg/__init__` is an edge to it: now helper -> room -> tool -> helper.
    _plant(tmp_path / "sub", {"room/helper.py": "from workbench.room import make\n"})
    assert _circles(package) == [["workbench.room", "workbench.room.helper", "workbench.room.tool"]]
