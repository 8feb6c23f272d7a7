"""Settings and well-known paths.

Settings come from two JSON files, as in pi: `~/.pi/agent/settings.json` (the user's) and
`<project>/.pi/settings.json` (the project's), merged key by key with the project winning. A
project is a stranger until the user trusts it: before that only the keys in `PROJECT_KEYS` apply
from its file (what the agent may do with its skills and queues, nothing that routes data, writes
outside the project or costs money); every other key it sets is a suggestion, withheld and named
(`Settings.withheld`) until the user trusts the project. Keys in `USER_ONLY_KEYS` are read from the
user's file alone. Keys are read with dotted paths (`settings.get("enforcer.mode", "warn")`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.errors import WorkbenchError
from workbench.paths import agent_dir as agent_dir  # kept here too: where settings code looks

PROJECT_DIR_NAME = ".pi"
SETTINGS_FILE = "settings.json"
PROJECT_KEYS = (
    "enforcer",
    "skills",
    "queue",
    "compaction.enabled",
    "sessions.remove_worktree_after_merge",
)
"""What a project may set before it is trusted: a key, or every key under it."""
USER_ONLY_KEYS = ("subagents.confirm_project_agents",)
"""What only the user's own settings may set, trusted project or not."""
SETTINGS_KEYS: dict[str, tuple[type, ...]] = {
    "model": (str,),
    "api_base": (str,),
    "cache": (bool,),
    "cache_retention": (str,),
    "compaction.enabled": (bool,),
    "compaction.reserve_tokens": (int,),
    "compaction.keep_recent_tokens": (int,),
    "enforcer.mode": (str,),
    "enforcer.prompt_budget_tokens": (int,),
    "queue.steering_mode": (str,),
    "queue.follow_up_mode": (str,),
    "retry.max_retries": (int,),
    "retry.base_delay_ms": (int,),
    "retry.max_delay_ms": (int,),
    "sandbox.mode": (str,),
    "sessions.remove_worktree_after_merge": (bool,),
    "sessions.worktrees_dir": (str,),
    "skills.catalog": (str,),
    "skills.claude": (bool,),
    "subagents.scope": (str,),
    "tools.confine": (bool,),
}
"""The settings keys a run can be given from outside its files (a sweep's variants), with the
JSON types their values take; the settings files may hold more (`models`, `subagents`...)."""
SETTINGS_OVERRIDE = "WORKBENCH_SETTINGS"
"""A JSON object of settings laid over both files for one process (a sweep's variant sets it for
the run it starts); its `skill_filters` (`!glob` ...) are added to the files' skill entries."""
MAX_PATH = 4096
"""Linux's limit on a path; a longer settings entry is an error, not a traceback."""


def find_project_root(start: Path) -> Path:
    """The nearest folder at or above `start` that holds `.pi/` or `.git`; `start` if none does."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / PROJECT_DIR_NAME).is_dir() or (folder / ".git").exists():
            return folder
    return start


def read_json_file(path: Path) -> Any:
    """Parse a JSON file, turning a syntax error into a WorkbenchError naming file and line."""
    import json  # loaded by the first settings file read: `workbench lint PATH` reads none

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


Key = tuple[str, ...]
"""A settings key as its parts: model names hold dots, so keys are not split on them."""


def _leaves(data: dict[str, Any], prefix: Key = ()) -> Iterator[tuple[Key, Any]]:
    """Every key and its value; an empty object is a leaf of its own."""
    for name, value in data.items():
        key = (*prefix, name)
        if isinstance(value, dict) and value:
            yield from _leaves(value, key)
        else:
            yield key, value


def _under(key: Key, dotted_keys: tuple[str, ...]) -> bool:
    """Whether `key` is one of `dotted_keys` or lies under one of them."""
    return any(key[: len(parts)] == parts for parts in (tuple(k.split(".")) for k in dotted_keys))


def _set(data: dict[str, Any], key: Key, value: Any) -> None:
    *parents, last = key
    for part in parents:
        data = data.setdefault(part, {})
    data[last] = value


def _read_object(path: Path) -> dict[str, Any]:
    loaded = read_json_file(path)
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise WorkbenchError(
            f"{path}: settings must be a JSON object, not {type(loaded).__name__}",
            'write it as {"key": value, ...}',
        )
    return loaded


def _skill_entries(data: dict[str, Any], file: Path) -> list[str]:
    """`skills.paths`, or pi's plain `skills` list; strings only, each one a possible path."""
    raw = data.get("skills")
    if isinstance(raw, dict):
        raw = raw.get("paths")
    entries = [entry for entry in raw if isinstance(entry, str)] if isinstance(raw, list) else []
    for entry in entries:
        if "\0" in entry or len(entry) > MAX_PATH or len(max(entry.split("/"), key=len)) > 255:
            shown = entry[:60].replace("\0", "\\0") + ("…" if len(entry) > 60 else "")
            raise WorkbenchError(
                f"{file}: skills.paths entry '{shown}' is not a usable path",
                f"paths have no NUL byte, at most {MAX_PATH} characters and 255 per folder name",
            )
    return entries


SKILL_FILTER_MARKS = "!+-"
"""pi's marks on a settings skill entry: `!glob` leaves matching skills out, `+path` brings one
back, `-path` leaves one out whatever else matched."""


@dataclass(frozen=True)
class SkillFilter:
    """One `!glob`, `+path` or `-path` entry, with the folder of the settings file that wrote it
    (relative patterns are relative to it, as in pi)."""

    mark: str
    pattern: str
    base: Path


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


@dataclass
class Settings:
    """The settings of one project: the user's, and what of the project's applies.

    `trusted` says whether the project's suggestions applied; `withheld` names the project's keys
    that wait for trust. `skill_sources` keeps each settings file's skill path entries with the
    folder of the file they came from, project file first.
    """

    project_root: Path
    data: dict[str, Any] = field(default_factory=dict)
    trusted: bool = False
    withheld: tuple[str, ...] = ()
    skill_sources: tuple[tuple[str, Path], ...] = ()

    @classmethod
    def load(cls, project_root: Path, *, trusted: bool = False) -> Settings:
        """Read the user's then the project's settings; a file that is not a JSON object is an
        error. `trusted`: the user trusts the project (recorded, or `--trust` for this run)."""
        user_file = agent_dir() / SETTINGS_FILE
        project_file = project_root / PROJECT_DIR_NAME / SETTINGS_FILE
        user = _read_object(user_file)
        project: dict[str, Any] = {}
        withheld: list[str] = []
        for key, value in _leaves(_read_object(project_file)):
            if _under(key, USER_ONLY_KEYS):
                continue
            if trusted or _under(key, PROJECT_KEYS):
                _set(project, key, value)
            else:
                withheld.append(".".join(key))
        import json

        override = json.loads(os.environ.get(SETTINGS_OVERRIDE) or "{}")
        chosen = [(entry, project_root) for entry in override.pop("skill_filters", [])]
        sources = [
            *chosen,
            *((entry, project_file.parent) for entry in _skill_entries(project, project_file)),
            *((entry, user_file.parent) for entry in _skill_entries(user, user_file)),
        ]
        return cls(
            project_root=project_root,
            data=merge_settings(merge_settings(user, project), override),
            trusted=trusted,
            withheld=tuple(withheld),
            skill_sources=tuple(dict.fromkeys(sources)),
        )

    def get(self, dotted_key: str, default: Any = None) -> Any:
        """The value at `a.b.c`, or `default` when any part is missing."""
        node: Any = self.data
        for part in dotted_key.split("."):
            if not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return node

    def skill_paths(self) -> list[Path]:
        """The skill folders the settings name, in order. Each entry is relative to the folder
        of the file that names it (`.pi/` for the project's, `~/.pi/agent/` for the user's, as in
        pi); where that finds nothing, to the project root. An untrusted project's entries that
        lead outside the project are left out (see `skill_paths_withheld`)."""
        return [path for path, allowed in self._resolved_skill_paths() if allowed]

    def skill_paths_withheld(self) -> list[Path]:
        """Skill folders an untrusted project names outside itself: read once it is trusted."""
        return [path for path, allowed in self._resolved_skill_paths() if not allowed]

    def skill_excludes(self) -> list[str]:
        """The `!pattern` entries: glob patterns of skill folders to leave out."""
        return [entry[1:] for entry, _ in self.skill_sources if entry.startswith("!")]

    def skill_filters(self) -> list[SkillFilter]:
        """The `!glob`, `+path` and `-path` entries, each with its settings file's folder."""
        return [
            SkillFilter(entry[0], entry[1:], folder)
            for entry, folder in self.skill_sources
            if entry[:1] in SKILL_FILTER_MARKS and entry[1:]
        ]

    def _resolved_skill_paths(self) -> list[tuple[Path, bool]]:
        root = self.project_root.resolve()
        resolved: list[tuple[Path, bool]] = []
        for entry, folder in self.skill_sources:
            if entry[:1] in SKILL_FILTER_MARKS:
                continue
            written = Path(entry).expanduser()
            path = (folder / written).resolve()
            if not path.exists() and not written.is_absolute():
                fallback = (self.project_root / written).resolve()
                path = fallback if fallback.exists() else path
            from_project = folder == self.project_root / PROJECT_DIR_NAME
            allowed = self.trusted or not from_project or _inside(path, root)
            if (path, allowed) not in resolved:
                resolved.append((path, allowed))
        return resolved
