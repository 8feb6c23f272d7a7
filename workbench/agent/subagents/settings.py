"""The `subagents.*` settings, and what the parent session lends the `subagent` tool.

    "subagents": {"scope": "user", "max_parallel_tasks": 8, "max_concurrency": 4,
                  "timeout_seconds": 900, "max_result_chars": 100000,
                  "confirm_project_agents": true}

`confirm_project_agents` is read from the user's settings only (`config.USER_ONLY_KEYS`): a
repository must not be able to switch off the question that protects the user from its own
agents. The other keys cost time and money: a project sets them only once the user trusts it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from workbench.agent.subagents.agent_files import SCOPES, Scope
from workbench.config import Settings, find_project_root
from workbench.errors import WorkbenchError
from workbench.mcp.handed import handed_servers
from workbench.trust import granted, project_settings

Confirm = Callable[[str, str], Awaitable[bool]]
"""Ask the user a yes/no question (title, message); the front end supplies it (a TUI dialog)."""
HINT = "see docs/sub-agents.md"


class SessionOptions(Protocol):
    """What the parent session was opened with (`WorkbenchOptions` offers it): its folder, how to
    reach its model, whether the user trusts that project for this run (`--trust`), whether to ask
    for no prompt caching (`--no-cache`, passed on to children), and a way to ask the user (None
    when no one can answer, as in headless runs)."""

    cwd: Path
    api_base: str | None
    api_key: str | None
    trust: bool
    no_cache: bool
    confirm: Confirm | None
    mcp: bool
    mcp_servers: dict[str, Any] | None
    mcp_config: Path | None


@dataclass
class SubagentHost:
    """What the parent session lends its children: its options, and its model right now (for
    agents that name none)."""

    options: SessionOptions
    model: Callable[[], str]

    def run_trust(self) -> Path | None:
        """What the parent's `--trust` grants (`workbench.trust.granted`)."""
        return granted(self.options.trust, self.options.cwd)

    def mcp_servers(self) -> dict[str, Any] | None:
        """The MCP servers a child is handed besides the ones it finds itself (the user's file,
        the project's when trusted): the parent's `--mcp-config` file's and an editor's; None
        when the parent starts none."""
        options = self.options
        return handed_servers(options.mcp, options.mcp_config, options.mcp_servers)


def _number(settings: Settings, key: str, default: float, kind: type) -> Any:
    value = settings.get(f"subagents.{key}", default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 1:
        raise WorkbenchError(f"setting subagents.{key} must be a number of at least 1", HINT)
    return kind(value)


@dataclass(frozen=True)
class SubagentSettings:
    scope: Scope = "user"
    max_parallel_tasks: int = 8
    max_concurrency: int = 4
    timeout_seconds: float = 900.0
    max_result_chars: int = 100_000
    confirm_project_agents: bool = True

    @classmethod
    def load(cls, cwd: Path, run: Path | None = None) -> SubagentSettings:
        """The settings of the project around `cwd`; `run`: what the run's `--trust` grants."""
        settings = project_settings(find_project_root(cwd), run)
        scope = settings.get("subagents.scope", cls.scope)
        if scope not in SCOPES:
            raise WorkbenchError(
                f"setting subagents.scope must be one of {', '.join(SCOPES)}", HINT
            )
        confirm = settings.get("subagents.confirm_project_agents", cls.confirm_project_agents)
        return cls(
            scope=scope,
            max_parallel_tasks=_number(settings, "max_parallel_tasks", cls.max_parallel_tasks, int),
            max_concurrency=_number(settings, "max_concurrency", cls.max_concurrency, int),
            timeout_seconds=_number(settings, "timeout_seconds", cls.timeout_seconds, float),
            max_result_chars=_number(settings, "max_result_chars", cls.max_result_chars, int),
            confirm_project_agents=confirm is not False,
        )
