"""A `subagent` call's arguments: its schema, and the one mode and runs it asks for.

Exactly one mode per call: single `{agent, task, cwd?}`; parallel `{tasks: [{agent, task, cwd?}]}`
(at most `max_parallel_tasks`); chain `{chain: [...]}`, where `{previous}` in a step's task stands
for the previous step's answer. Anything else is a WorkbenchError that says what is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.agent.subagents.agent_files import SCOPES, Scope
from workbench.agent.subagents.settings import SubagentSettings
from workbench.errors import WorkbenchError

PREVIOUS = "{previous}"
MODES = {"single": ("agent", "task"), "parallel": ("tasks",), "chain": ("chain",)}
"""Each mode and the arguments that choose it."""
_TASK = {
    "type": "object",
    "properties": {
        "agent": {"type": "string", "description": "The agent's name"},
        "task": {"type": "string", "description": "What the agent should do"},
        "cwd": {"type": "string", "description": "Working folder (default: the current one)"},
    },
    "required": ["agent", "task"],
}
PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "agent": {"type": "string", "description": "Single mode: the agent's name"},
        "task": {"type": "string", "description": "Single mode: the task"},
        "cwd": {"type": "string", "description": "Single mode: working folder"},
        "tasks": {
            "type": "array",
            "items": _TASK,
            "description": "Parallel mode: independent tasks, each {agent, task, cwd?}",
        },
        "chain": {
            "type": "array",
            "items": _TASK,
            "description": "Chain mode: steps run in order; {previous} in a step's task is "
            "replaced by the previous step's answer",
        },
        "scope": {
            "type": "string",
            "enum": list(SCOPES),
            "description": "Which agents: user (default), project (this repository's "
            ".pi/agents, needs the user's confirmation) or both",
        },
    },
}


@dataclass
class Item:
    """One requested run: which agent, what task (a chain step's may hold `{previous}`), where."""

    agent: str
    task: str
    cwd: Path


def _items(raw: Any, what: str, base: Path) -> list[Item]:
    if not isinstance(raw, list) or not raw:
        raise WorkbenchError(f"{what} must be a non-empty list of {{agent, task, cwd?}} objects")
    return [_item(entry, f"{what}[{number}]", base) for number, entry in enumerate(raw, 1)]


def _item(entry: Any, where: str, base: Path) -> Item:
    if not isinstance(entry, dict):
        raise WorkbenchError(f"{where} must be an object {{agent, task, cwd?}}")
    agent, task, cwd = entry.get("agent"), entry.get("task"), entry.get("cwd")
    if not isinstance(agent, str) or not agent.strip():
        raise WorkbenchError(f"{where} needs an agent name")
    if not isinstance(task, str) or not task.strip():
        raise WorkbenchError(f"{where} needs a task")
    if _given(cwd) and not isinstance(cwd, str):
        raise WorkbenchError(f"{where}: cwd must be a folder path")
    folder = (base / Path(cwd).expanduser()).resolve() if cwd else base
    if not folder.is_dir():
        raise WorkbenchError(f"{where}: the folder {folder} does not exist")
    return Item(agent.strip(), task, folder)


def _given(value: Any) -> bool:
    """Models often fill unused optional arguments with null, "" or []: those count as absent."""
    return value not in (None, "", [], {})


@dataclass
class Request:
    """What a call asks for: its mode, its runs in order, and the scope to find agents in."""

    mode: str
    items: list[Item]
    scope: Scope


def requested(args: dict[str, Any], base: Path, settings: SubagentSettings) -> Request:
    """The call's request, or a WorkbenchError saying what is wrong."""
    scope = args.get("scope") or settings.scope
    if scope not in SCOPES:
        raise WorkbenchError(f"scope must be one of {', '.join(SCOPES)}, not {scope!r}")
    given = [mode for mode, keys in MODES.items() if any(_given(args.get(k)) for k in keys)]
    if len(given) != 1:
        gave = f" (this call gave {' and '.join(given)})" if given else ""
        raise WorkbenchError(
            f"give exactly one mode{gave}",
            "single: {agent, task}; parallel: {tasks: [{agent, task}, ...]}; "
            "chain: {chain: [{agent, task}, ...]} with {previous} in a later task",
        )
    mode = given[0]
    if mode != "single" and _given(args.get("cwd")):
        raise WorkbenchError(f"cwd applies to single mode; in {mode} mode give each task its cwd")
    if mode == "single":
        return Request(mode, [_item(args, "single mode", base)], scope)
    (key,) = MODES[mode]
    items = _items(args.get(key), key, base)
    if mode == "parallel" and len(items) > settings.max_parallel_tasks:
        raise WorkbenchError(
            f"at most {settings.max_parallel_tasks} parallel tasks per call; this call gave "
            f"{len(items)}",
            "split the work over several calls (setting subagents.max_parallel_tasks)",
        )
    return Request(mode, items, scope)
