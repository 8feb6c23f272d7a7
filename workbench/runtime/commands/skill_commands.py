"""The skills' commands: the CLI's lint, graph, compile and `skills status`; the app's skill
graph; activating and deactivating a skill; the loading state."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from workbench.runtime.commands.registry import AnyCommand, Args, Argument, CommandSpec

if TYPE_CHECKING:
    from workbench.runtime.workbench import Workbench


async def _skill_graph_status(wb: Workbench, args: Args) -> str:
    return wb.skills_status()


async def _activate(wb: Workbench, args: Args) -> None:
    await wb.activate(args["skill"])  # its notice says what happened


async def _deactivate(wb: Workbench, args: Args) -> None:
    await wb.deactivate(args["skill"])


async def _last_eval(wb: Workbench, args: Args) -> str:
    """The skill's last eval (the app shows it; `workbench eval PATH` makes one)."""
    from workbench.evals.saved import last_eval_text

    skill = str(args.get("skill") or "").strip() or None
    return await asyncio.to_thread(last_eval_text, wb.project_root, skill)


COMMANDS: tuple[AnyCommand, ...] = (
    CommandSpec("lint", "check skill folders and report findings", frozenset({"cli"})),
    CommandSpec(
        "eval",
        "a skill's evals run with and without it, graded and compared (the app: the last one)",
        frozenset({"cli", "app"}),
        (Argument("skill", "a skill name", False, "skills"),),
        _last_eval,
    ),
    CommandSpec(
        "graph", "print the skill graph as a tree, JSON, Mermaid or DOT", frozenset({"cli"})
    ),
    CommandSpec(
        "compile",
        "write each skill's summary, core and full projections to disk",
        frozenset({"cli"}),
    ),
    CommandSpec(
        "skills",
        "skill commands: `skills status` shows a session's skill loading state",
        frozenset({"cli"}),
    ),
    CommandSpec("skills", "go to the skill graph", frozenset({"app"})),
    CommandSpec(
        "skill-graph-status",
        "loaded skills, active compound, violations",
        frozenset({"app", "acp", "rpc"}),
        run=_skill_graph_status,
        to_json=lambda text: {"text": text},
        rpc_name="skills_status",
    ),
    CommandSpec(
        "activate",
        "activate a skill for this branch",
        frozenset({"app", "acp"}),
        (Argument("skill", "a skill name", True, "skills"),),
        _activate,
    ),
    CommandSpec(
        "deactivate",
        "deactivate a skill",
        frozenset({"app", "acp"}),
        (Argument("skill", "a skill name", True, "skills"),),
        _deactivate,
    ),
)
