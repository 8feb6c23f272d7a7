"""`register(api, skills, settings)`: the enforcer plugged into a session like any extension.

It listens on session_start (derive the loading state from the branch), before_agent_start (reload
a changed skill set; append the topology to the system prompt), tool_call and tool_result (check
skill reads, refuse or warn, record, append guidance; note a tool that may have changed a skill),
context (after such a tool, reload a changed skill set before the next model call) and input
(`/skill:<name> [request]`). It offers the tools `skill_activate`, `skill_deactivate` and
`prime_query`, and the command `/skill-graph-status`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from workbench.config import Settings
from workbench.enforcer.core import Enforcer
from workbench.enforcer.query import QueryError, prime_query
from workbench.enforcer.reload import LiveSkills, Loader
from workbench.enforcer.state import LOAD_KEY
from workbench.extension_api import ExtensionAPI
from workbench.hooks import InputEvent
from workbench.messages import TYPED
from workbench.skills.discover import SkillSet
from workbench.skills.graph import SkillGraph
from workbench.skills.projection import LEVELS
from workbench.tool import Tool, ToolContext, ToolResult

BUILTIN_TOOLS = ("read", "edit", "write", "bash")
SKILL_COMMAND = re.compile(r"^/skill:(\S+)(?:\s+(.*))?$", re.DOTALL)
_NAME_PARAMETERS = {
    "type": "object",
    "properties": {"name": {"type": "string", "description": "The skill's name."}},
    "required": ["name"],
}


def _name(args: dict[str, Any]) -> str:
    value = args.get("name", "")
    return value if isinstance(value, str) else ""


def _tools(enforcer: Enforcer) -> list[Tool]:
    async def activate(args: dict[str, Any], _context: ToolContext) -> ToolResult:
        outcome = enforcer.activate(_name(args))
        details = {LOAD_KEY: outcome.record.to_dict()} if outcome.record else {}
        return ToolResult(outcome.text, outcome.is_error, details)

    async def deactivate(args: dict[str, Any], _context: ToolContext) -> ToolResult:
        return enforcer.deactivate(_name(args))

    async def query(args: dict[str, Any], _context: ToolContext) -> ToolResult:
        tags = args.get("tags") or []
        budget = args.get("budget_tokens", 800)
        if not isinstance(tags, list) or not isinstance(budget, int) or budget < 1:
            return ToolResult("tags: a list of strings; budget_tokens: a positive number", True)
        try:
            answer = prime_query(
                enforcer.skills.graph,
                enforcer.view.where,
                enforcer.view.allowlist.allows,
                scope=str(args.get("scope", "")),
                level=str(args.get("level", "summary")),
                tags=[str(t) for t in tags],
                budget_tokens=budget,
            )
        except QueryError as exc:
            return ToolResult(str(exc), is_error=True)
        shown = [{"skill": name, "level": level} for name, level in answer.shown]
        return ToolResult(answer.text, details={"prime_query": {"shown": shown}})

    return [
        Tool(
            "skill_activate",
            "Activate a skill by name: its instructions are returned for you to follow. "
            "Activation is checked against the skill graph like a read of its SKILL.md.",
            _NAME_PARAMETERS,
            activate,
            changes_files=False,
        ),
        Tool(
            "skill_deactivate",
            "Deactivate a skill you no longer need; stop following its instructions.",
            _NAME_PARAMETERS,
            deactivate,
            changes_files=False,
        ),
        Tool(
            "prime_query",
            "Find skills and read them at a chosen size. scope: '' (all), 'compound', "
            "'molecule', 'atom', 'unlayered', 'standalone', 'skill:NAME', 'under:NAME' (a "
            "skill and all it delegates to), or 'focus:WORDS'. level: summary (~30 tokens a "
            "skill), core (~150) or full. tags: keep skills with one of these tags. The answer "
            "fits budget_tokens, most relevant first.",
            {
                "type": "object",
                "properties": {
                    "scope": {"type": "string"},
                    "level": {"type": "string", "enum": list(LEVELS)},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "budget_tokens": {"type": "integer", "minimum": 1},
                },
            },
            query,
            changes_files=False,
        ),
    ]


def _on_input(enforcer: Enforcer) -> Callable[[InputEvent], None]:
    def handle(event: InputEvent) -> None:
        match = SKILL_COMMAND.match(event.text.strip())
        if match is None:
            return
        name, request = match.group(1), (match.group(2) or "").strip()
        outcome = enforcer.activate(name, how="command")
        if outcome.is_error:
            event.handled = True  # the skill_load event tells the user what went wrong
            return
        ask = (
            f"Follow the skill `{name}` above to handle this request:\n\n{request}"
            if request
            else f"Follow the skill `{name}` above. If the task is unclear, ask me one question."
        )
        event.details[TYPED] = f"/skill:{name} {request}".strip()
        event.text = outcome.text + "\n\n" + ask
        if outcome.record is not None:
            event.details[LOAD_KEY] = outcome.record.to_dict()

    return handle


def register(
    api: ExtensionAPI,
    skills: SkillGraph | Loader,
    settings: Settings,
    *,
    session_tools: Callable[[], Iterable[str]] | None = None,
    cwd: Path | None = None,
) -> Enforcer:
    """Plug the enforcer into a session and return it (for activate, deactivate and status).

    `skills` is a function that discovers the skill set afresh (`lambda:
    load_project_skills(root)`: a change on disk is then picked up before the next run), or a
    fixed graph. `session_tools` names the tools the model is offered, for the `allowed-tools`
    report and the system prompt's wording (default: the four primitives and the enforcer's own);
    `cwd` is the folder skill files are named relative to (default: the project root).
    """
    if isinstance(skills, SkillGraph):
        graph = skills
        load: Loader = lambda: SkillSet(graph, [], len(graph), ())  # noqa: E731
    else:
        load = skills
    tools = session_tools or (lambda: [*BUILTIN_TOOLS, *api.tools])
    enforcer = Enforcer(api, LiveSkills(load), settings, tools, base=cwd or settings.project_root)
    api.on("session_start", enforcer.on_session_start)
    api.on("before_agent_start", enforcer.on_before_agent_start)
    api.on("tool_call", enforcer.on_tool_call)
    api.on("tool_result", enforcer.on_tool_result)
    api.on("context", enforcer.on_context)
    api.on("input", _on_input(enforcer))
    for tool in _tools(enforcer):
        api.register_tool(tool)
    api.register_command(
        "skill-graph-status",
        lambda _args: enforcer.status(),
        "show the active compound, loaded skills, recent loads and violations",
    )
    return enforcer
