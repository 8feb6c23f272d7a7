"""Settings and well-known paths.

Settings come from two JSON files, merged key by key with the project winning:
`~/.pi/agent/settings.json` (user) and `<project>/.pi/settings.json` (project), as in pi.
Keys are read with dotted paths (`settings.get("enforcer.mode", "warn")`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.errors import WorkbenchError

PROJECT_DIR_NAME = ".pi"
SETTINGS_FILE = "settings.json"


def agent_dir() -> Path:
    """The user's workbench/pi directory (`~/.pi/agent`, or `$PI_CODING_AGENT_DIR`)."""
    override = os.environ.get("PI_CODING_AGENT_DIR")
    return Path(override).expanduser() if override else Path.home() / ".pi" / "agent"


def find_project_root(start: Path) -> Path:
    """The nearest folder at or above `start` that holds `.pi/` or `.git`; `start` if none does."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / PROJECT_DIR_NAME).is_dir() or (folder / ".git").exists():
            return folder
    return start


def read_json_file(path: Path) -> Any:
    """Parse a JSON file, turning a syntax error into a WorkbenchError naming file and line."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise WorkbenchError(f"cannot read {path}: {exc}", "check the file's permissions") from exc
    try:
        return json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        raise WorkbenchError(
            f"{path}:{exc.lineno}: invalid JSON: {exc.msg}",
            "fix the file or move it aside; workbench reads it at start-up",
        ) from exc


def merge_settings(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """Merge `override` into a copy of `base`: nested objects merge, everything else replaces."""
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge_settings(merged[key], value)
        else:
            merged[key] = value
    return merged


@dataclass
class Settings:
    """Merged user and project settings for one project."""

    project_root: Path
    data: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, project_root: Path) -> Settings:
        """Read user then project settings; a file that is not a JSON object is an error."""
        merged: dict[str, Any] = {}
        for path in (agent_dir() / SETTINGS_FILE, project_root / PROJECT_DIR_NAME / SETTINGS_FILE):
            loaded = read_json_file(path)
            if loaded is None:
                continue
            if not isinstance(loaded, dict):
                raise WorkbenchError(
                    f"{path}: settings must be a JSON object, not {type(loaded).__name__}",
                    'write it as {"key": value, ...}',
                )
            merged = merge_settings(merged, loaded)
        return cls(project_root=project_root, data=merged)

    def get(self, dotted_key: str, default: Any = None) -> Any:
        """The value at `a.b.c`, or `default` when any part is missing."""
        node: Any = self.data
        for part in dotted_key.split("."):
            if not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return node

    def skill_paths(self) -> list[Path]:
        """`skills.paths` (or pi's plain `skills` list), resolved against the project root."""
        raw = self.data.get("skills")
        paths = raw if isinstance(raw, list) else self.get("skills.paths", [])
        if not isinstance(paths, list):
            return []
        return [
            (self.project_root / Path(p).expanduser()).resolve()
            for p in paths
            if isinstance(p, str)
        ]
