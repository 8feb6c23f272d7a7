"""Extensions: Python modules that receive an `ExtensionAPI` through their `register(api)`.

User extensions live in `~/.pi/agent/extensions/`, project extensions in
`<project>/.pi/extensions/`; each is a `.py` file or a package folder. A project extension is code
from whoever wrote the repository, so it runs only once the user has trusted that project (the
rule is `workbench.trust.trusted`). Untrusted and broken extensions are reported, never silently
dropped.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import sys
from dataclasses import dataclass, field
from pathlib import Path

from workbench.config import PROJECT_DIR_NAME, agent_dir
from workbench.errors import WorkbenchError
from workbench.extension_api import ExtensionAPI
from workbench.trust import how_to_trust

EXTENSIONS_DIR = "extensions"


@dataclass
class ExtensionReport:
    loaded: list[Path] = field(default_factory=list)
    skipped: list[tuple[Path, str]] = field(default_factory=list)
    failed: list[tuple[Path, str]] = field(default_factory=list)


def extension_files(folder: Path) -> list[Path]:
    """`.py` files and package folders in `folder`, by name; names starting with `_` or `.` are
    left alone (helpers, caches)."""
    if not folder.is_dir():
        return []
    found = []
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith(("_", ".")):
            continue
        if (entry.suffix == ".py" and entry.is_file()) or (
            entry.is_dir() and (entry / "__init__.py").is_file()
        ):
            found.append(entry)
    return found


async def _load_one(path: Path, api: ExtensionAPI) -> None:
    module_file = path / "__init__.py" if path.is_dir() else path
    digest = hashlib.sha1(str(path).encode()).hexdigest()[:10]
    name = f"workbench_extension_{path.stem}_{digest}"
    spec = importlib.util.spec_from_file_location(
        name, module_file, submodule_search_locations=[str(path)] if path.is_dir() else None
    )
    if spec is None or spec.loader is None:
        raise WorkbenchError(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    register = getattr(module, "register", None)
    if not callable(register):
        raise WorkbenchError("it has no register(api) function")
    outcome = register(api)
    if inspect.isawaitable(outcome):
        await outcome


async def load_extensions(
    api: ExtensionAPI, project_root: Path, project_trusted: bool, include_user: bool = True
) -> ExtensionReport:
    """Load user extensions, then (when trusted) project extensions, in name order."""
    report = ExtensionReport()
    user = extension_files(agent_dir() / EXTENSIONS_DIR) if include_user else []
    project = extension_files(project_root / PROJECT_DIR_NAME / EXTENSIONS_DIR)
    if not project_trusted:
        why = f"project not trusted; {how_to_trust(project_root)}"
        report.skipped = [(path, why) for path in project]
        project = []
    for path in [*user, *project]:
        try:
            await _load_one(path, api)
        except Exception as exc:  # an extension's bug is reported, the session goes on
            message = exc.message if isinstance(exc, WorkbenchError) else repr(exc)
            report.failed.append((path, message))
        else:
            report.loaded.append(path)
    return report
