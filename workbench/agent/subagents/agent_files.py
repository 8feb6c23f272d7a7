"""Agent definitions: the specialists the `subagent` tool hands work to.

An agent is a Markdown file: YAML frontmatter with `name` and `description` (required), `tools`
(a comma list or YAML list: exactly the tools the child is offered, built-in, enforcer or extension
tools; every tool when absent), `model` (the parent's model when absent), `confine` (keep the
file tools inside the project; on by default for read-only agents), `mcp: none` (start no MCP
servers; by default the child starts the parent's) and `sandbox` (a stricter sandbox mode than
the parent's, e.g. `strict`; a looser one is ignored); the body is the child's system prompt.
Which tool names exist is known only in the child (extensions and MCP servers add tools), so a
name no tool has fails the child's start with a message that lists the tools there are.
User agents live in `~/.pi/agent/agents/`, project agents in the nearest `.pi/agents/` at or above
the working folder. With scope `both` a project agent replaces a user agent of the same name.

A file that cannot be used is reported as an `AgentProblem` and skipped; the others still load.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from workbench.config import PROJECT_DIR_NAME, agent_dir
from workbench.errors import WorkbenchError
from workbench.sandbox.policy import Mode, mode
from workbench.skills.frontmatter import read_frontmatter

Scope = Literal["user", "project", "both"]
Source = Literal["user", "project"]
SCOPES: tuple[str, ...] = get_args(Scope)
AGENTS_DIR_NAME = "agents"
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
TOOL_NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
WRITING_TOOLS = frozenset({"write", "edit", "bash"})
"""Tools that change files or run commands: an agent without them is read-only."""
"""What model APIs accept as a function name."""
_CLOSING = re.compile(r"^---[ \t]*$", re.MULTILINE)


@dataclass(frozen=True)
class AgentDef:
    """One agent: what the model sees (name, description) and how its child runs."""

    name: str
    description: str
    system_prompt: str
    source: Source
    path: Path
    tools: tuple[str, ...] | None = None
    model: str | None = None
    confine: bool | None = None
    """`confine:` in the file; None: confined exactly when its tools are read-only."""
    mcp: bool = True
    """False for `mcp: none`: the child starts no MCP servers."""
    sandbox: Mode | None = None
    """`sandbox:` in the file: it may narrow the parent's mode, never widen it."""

    @property
    def confined(self) -> bool:
        """Whether the child's file tools stay inside its project and worktrees."""
        if self.confine is not None:
            return self.confine
        return self.tools is not None and not set(self.tools) & WRITING_TOOLS


@dataclass(frozen=True)
class AgentProblem:
    """A definition file that was skipped, and why."""

    path: Path
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass
class AgentCatalog:
    """The agents of one scope, by name, with the files that could not be used."""

    scope: Scope
    agents: dict[str, AgentDef] = field(default_factory=dict)
    problems: list[AgentProblem] = field(default_factory=list)
    project_dir: Path | None = None

    def listing(self) -> str:
        """`name (source)` for each agent, or `none`."""
        return ", ".join(f"{a.name} ({a.source})" for a in self.agents.values()) or "none"


def user_agents_dir() -> Path:
    return agent_dir() / AGENTS_DIR_NAME


def project_agents_dir(cwd: Path) -> Path | None:
    """The nearest `.pi/agents/` at or above `cwd`."""
    start = cwd.resolve()
    for folder in (start, *start.parents):
        candidate = folder / PROJECT_DIR_NAME / AGENTS_DIR_NAME
        if candidate.is_dir():
            return candidate
    return None


def _split(text: str) -> tuple[str, str] | str:
    """(frontmatter, body), or what is wrong with the file's shape."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    if not text.startswith("---\n"):
        return "the file does not start with a `---` frontmatter line"
    closing = _CLOSING.search(text, 4)
    if closing is None:
        return "the frontmatter is never closed with a `---` line"
    return text[4 : closing.start()], text[closing.end() :].strip()


def _tools(value: Any) -> tuple[str, ...] | str | None:
    """The tool names, None when absent, or what is wrong with them."""
    if value is None:
        return None
    if isinstance(value, str):
        names = [n.strip() for n in value.split(",")]
    elif isinstance(value, list) and all(isinstance(n, str) for n in value):
        names = [n.strip() for n in value]
    else:
        return "`tools` must be a comma-separated list of tool names"
    names = [n for n in names if n]
    invalid = [n for n in names if not TOOL_NAME_PATTERN.match(n)]
    if invalid:
        return f"{', '.join(map(repr, invalid))} is not a tool name (letters, digits, _ and -)"
    return tuple(names) or None


def parse_agent(path: Path, source: Source) -> AgentDef | AgentProblem:
    """Read one definition file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return AgentProblem(path, f"cannot read the file: {exc}")
    parts = _split(text)
    if isinstance(parts, str):
        return AgentProblem(path, parts)
    yaml_text, body = parts
    read = read_frontmatter(yaml_text)
    if read.fields is None:
        return AgentProblem(path, read.problems[0][2] if read.problems else "invalid frontmatter")
    fields = read.fields
    name, description, model = fields.get("name"), fields.get("description"), fields.get("model")
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        return AgentProblem(path, "`name` is required: letters, digits, `.`, `_` or `-`")
    if not isinstance(description, str) or not description.strip():
        return AgentProblem(path, "`description` is required: say what the agent is for")
    if model is not None and (not isinstance(model, str) or not model.strip()):
        return AgentProblem(path, "`model` must be a model string")
    tools = _tools(fields.get("tools"))
    if isinstance(tools, str):
        return AgentProblem(path, tools)
    confine = fields.get("confine")
    if confine is not None and not isinstance(confine, bool):
        return AgentProblem(path, "`confine` must be true or false")
    mcp = fields.get("mcp", "all")
    if mcp not in ("none", "all"):
        return AgentProblem(path, "`mcp` is `none` (no MCP servers) or `all` (the parent's)")
    try:
        sandbox = None if fields.get("sandbox") is None else mode(fields["sandbox"], "`sandbox`")
    except WorkbenchError as exc:
        return AgentProblem(path, exc.message)
    return AgentDef(
        name=name,
        description=" ".join(description.split()),
        system_prompt=body,
        source=source,
        path=path,
        tools=tools,
        model=model.strip() if model else None,
        confine=confine,
        mcp=mcp != "none",
        sandbox=sandbox,
    )


def _load_dir(folder: Path, source: Source, catalog: AgentCatalog) -> dict[str, AgentDef]:
    found: dict[str, AgentDef] = {}
    try:
        paths = sorted(p for p in folder.glob("*.md") if p.is_file())
    except OSError as exc:
        catalog.problems.append(AgentProblem(folder, f"cannot list the folder: {exc}"))
        return found
    for path in paths:
        agent = parse_agent(path, source)
        if isinstance(agent, AgentProblem):
            catalog.problems.append(agent)
        elif agent.name in found:
            first = found[agent.name].path.name
            catalog.problems.append(AgentProblem(path, f"agent {agent.name!r} is already {first}"))
        else:
            found[agent.name] = agent
    return found


def discover_agents(cwd: Path, scope: Scope = "user") -> AgentCatalog:
    """The agents visible from `cwd` in `scope`; project agents win on a name."""
    catalog = AgentCatalog(scope=scope, project_dir=project_agents_dir(cwd))
    if scope in ("user", "both") and user_agents_dir().is_dir():
        catalog.agents.update(_load_dir(user_agents_dir(), "user", catalog))
    if scope in ("project", "both") and catalog.project_dir is not None:
        catalog.agents.update(_load_dir(catalog.project_dir, "project", catalog))
    return catalog
