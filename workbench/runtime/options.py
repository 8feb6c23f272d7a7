"""What a front end opens a session with (`WorkbenchOptions`), and the session's state at a
glance (`WorkbenchState`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workbench.agent.costs import UsageTotals
    from workbench.agent.extensions import ExtensionReport
    from workbench.agent.loop import Agent
    from workbench.agent.store import ConversationStore
    from workbench.agent.subagents.settings import Confirm
    from workbench.messages import Message
    from workbench.runtime.current import Current
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
    sandbox: str | None = None
    """The sandbox mode of the tools' commands (`--sandbox`); None: the `sandbox` setting."""
    no_cache: bool = False
    """Ask the provider for no prompt caching (`--no-cache`; the `cache` setting does it too)."""
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
    approval: str | None = None
    """`--approval never|edits|all`: the run's own choice, over the `approval` setting; with no
    one to ask (headless), `edits` and `all` refuse what would need approval."""
    mcp: bool = True
    """Start MCP servers (`--no-mcp` and an agent's `mcp: none` say False)."""
    mcp_servers: dict[str, Any] | None = None
    """An editor's MCP servers (ACP `mcpServers`), in the `.mcp.json` shape."""
    mcp_config: Path | None = None
    """A file of MCP servers the user names (`--mcp-config`; how a sub-agent gets the editor's)."""


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
    approval: str
    extensions: dict[str, list[Any]] = field(default_factory=dict)
    input_tokens: int = 0
    """The session's totals, with `total_cost` their cost: the tokens of the conversation on this
    branch from its start, of its sub-agents and of the experiments merged into it. Input tokens
    are the uncached ones; cache reads and writes are counted apart."""
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    session_hit_rate: float | None = None
    """Cache reads over all prompt tokens of the session; None before any usage was reported."""
    last_turn_hit_rate: float | None = None
    """The same for the latest model call that reported usage."""
    mcp: dict[str, Any] = field(default_factory=dict)
    """The MCP servers: each one's source, state, tools and last error (`McpReport`)."""
    sandbox: str = "off"
    """The box of the tools' commands (`SandboxPolicy.label`)."""

    @classmethod
    def of(
        cls,
        current: Current,
        agent: Agent,
        commands: list[str],
        extensions: ExtensionReport,
        mcp: dict[str, Any],
    ) -> WorkbenchState:
        """The state of the session in use, its agent, commands, extensions and MCP servers
        (`McpReport.to_json`) now."""
        info, state = agent.state.model.info, agent.state
        return cls(
            session_id=current.store.session_id,
            branch=current.store.branch,
            cwd=str(current.cwd),
            model=info.name,
            offline=info.offline,
            busy=agent.busy,
            context_tokens=state.context_tokens(),
            context_window=info.context_window,
            steering=agent.steering.texts(),
            follow_up=agent.follow_ups.texts(),
            message_count=len(state.messages),
            tools=list(state.tools),
            sandbox=state.sandbox.label(),
            commands=commands,
            approval=state.approval.mode,
            extensions={
                "loaded": [str(p) for p in extensions.loaded],
                "skipped": [[str(p), r] for p, r in extensions.skipped],
                "failed": [[str(p), e] for p, e in extensions.failed],
            },
            mcp=mcp,
            **cls.usage_fields(state.totals(), state.last_call()),
        )

    @staticmethod
    def usage_fields(totals: UsageTotals, last: Message | None) -> dict[str, Any]:
        """The fields above, from the session's totals and its latest call."""
        return {
            "total_cost": totals.cost,
            "input_tokens": totals.input_tokens,
            "output_tokens": totals.output_tokens,
            "cache_read_tokens": totals.cache_read_tokens,
            "cache_write_tokens": totals.cache_write_tokens,
            "session_hit_rate": totals.hit_rate,
            "last_turn_hit_rate": last.usage.hit_rate if last and last.usage else None,
        }

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
