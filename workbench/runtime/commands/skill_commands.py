"""The skills' commands: the CLI's lint, graph, compile and `skills status`; the app's skill
graph; activating and deactivating a skill; the loading state; a skill's eval (`/eval SKILL
[options]` on every surface, with the options of `workbench eval`; `/eval` alone: the last
evals)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from workbench.runtime.commands.registry import SURFACES, AnyCommand, Args, Argument, CommandSpec

if TYPE_CHECKING:
    from workbench.evals.results import EvalReport
    from workbench.runtime.workbench import Workbench


async def _skill_graph_status(wb: Workbench, args: Args) -> str:
    return wb.skills_status()


async def _activate(wb: Workbench, args: Args) -> None:
    await wb.activate(args["skill"])  # its notice says what happened


async def _deactivate(wb: Workbench, args: Args) -> None:
    await wb.deactivate(args["skill"])


async def _eval(wb: Workbench, args: Args) -> EvalReport | str:
    """The skill's eval, run now; without a skill, every skill's last eval."""
    import asyncio  # here: the command line imports this table, and a warm run needs no asyncio

    from workbench.evals.saved import last_eval_text

    if not str(args.get("skill") or "").strip():
        return await asyncio.to_thread(last_eval_text, wb.project_root, None)
    return await wb.eval(dict(args))


def _read_eval(text: str) -> dict[str, Any]:
    from workbench.evals.options import read_slash

    return read_slash(text)


def _eval_text(result: EvalReport | str) -> str:
    from workbench.evals.text import render_report

    return result if isinstance(result, str) else render_report(result)


def _eval_json(result: EvalReport | str) -> object:
    return {"text": result} if isinstance(result, str) else result.to_json()


COMMANDS: tuple[AnyCommand, ...] = (
    CommandSpec("lint", "check skill folders and report findings", frozenset({"cli"})),
    CommandSpec(
        "eval",
        "a skill's evals run with and without it, graded and compared",
        SURFACES,
        (
            Argument("skill", "a skill name", False, "skills"),
            *(Argument(name, kind=int, in_text=False) for name in ("repeat", "jobs")),
            *(Argument(name, in_text=False) for name in ("grader", "against", "catalog")),
            Argument("enforcer", in_text=False),
            Argument("ablate", kind=bool, in_text=False),
            Argument("yes", kind=bool, in_text=False),
            Argument("no_triggers", kind=bool, in_text=False),
            Argument("max_cost", kind=float, in_text=False),
            Argument("max_tokens", kind=int, in_text=False),
            Argument("timeout", kind=float, in_text=False),
            Argument("check_timeout", kind=float, in_text=False),
            Argument("sandbox", in_text=False),
        ),
        _eval,
        _eval_text,
        _eval_json,
        args_usage="[skill] [--repeat N ...]",
        parse=_read_eval,
        example="/eval compound-ship-change --repeat 3",
        fence="",
        background=True,
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
