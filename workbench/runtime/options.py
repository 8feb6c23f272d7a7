"""What a front end opens a session with (`WorkbenchOptions`), and the session's state at a
glance (`WorkbenchState`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workbench.agent.store import ConversationStore
    from workbench.agent.subagents.settings import Confirm
    from workbench.skills.graph import SkillGraph


@dataclass
class WorkbenchOptions:
    """What a front end decides when it opens a session (CLI flags map one to one)."""

    cwd: Path
    model: str | None = None
    api_base: str | None = None
    api_key: str | None = None
    tools: list[str] | None = None
    system_prompt: str | None = None
    append_system_prompt: str | None = None
    trust: bool = False
    confine_tools: bool = False
    """Confine read, write and edit to the project and its worktrees (`--confine-tools`; the
    `tools.confine` setting does it too)."""
    store: ConversationStore | None = None
    """Where finished messages go (`--no-session`: a `MemoryStore`); None: a stored session."""
    session_id: str | None = None
    """Resume this session (an id or unique prefix; `--session`)."""
    continue_session: bool = False
    """Resume the project's most recently active session (`--continue`)."""
    branch: str | None = None
    """Resume on this branch (`--branch`); alone, it resumes the most recent session."""
    skills: SkillGraph | None = None
    """A fixed skill graph (tests); None discovers the project's and reloads it on change."""
    confirm: Confirm | None = None
    """Asks the user yes or no (title, message), e.g. before project sub-agents run."""


@dataclass
class WorkbenchState:
    """A snapshot for status bars and `get_state`."""

    session_id: str
    branch: str
    cwd: str
    model: str
    offline: bool
    busy: bool
    context_tokens: int
    context_window: int
    total_cost: float | None
    steering: list[str]
    follow_up: list[str]
    message_count: int
    tools: list[str]
    commands: list[str]
    extensions: dict[str, list[Any]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
