"""An eval's options, read the same way wherever an eval is asked for: `workbench eval PATH` on
the command line, `/eval SKILL ...` in the app or an editor, `eval` over RPC.

`add_eval_options` gives a parser the options of the eval (repeats, configurations, grader, time
and spend limits); `request_of` makes the engine's `EvalRequest` from what was read (the fields
by their names with `_`, as RPC's); `read_slash` reads `/eval` text; `skills_under` and
`skill_named` find the skills an eval is asked of.
"""

from __future__ import annotations

import argparse
import os
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from workbench.errors import UsageError
from workbench.sandbox.policy import MODES

if TYPE_CHECKING:
    from workbench.evals.engine import EvalRequest
    from workbench.skills.model import Skill

EXAMPLE = "/eval compound-ship-change --repeat 3 --enforcer off"
ASK_ABOVE = 20
"""`--ablate` asks before starting more runs than this (`--yes` does not ask)."""


def add_eval_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repeat", type=int, default=3, help="runs of each case (default 3)")
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="runs at once (default: cores)"
    )
    parser.add_argument("--grader", metavar="MODEL", help="grades assertions (default: --model)")
    parser.add_argument("--against", metavar="OLD_PATH", help="add `previous`: an older version")
    parser.add_argument(
        "--enforcer", metavar="MODES", help="add enforcer_MODE for each of off,warn,block"
    )
    parser.add_argument("--catalog", choices=("flat",), help="add flat_catalog")
    parser.add_argument("--ablate", action="store_true", help="remove each part of a compound")
    parser.add_argument("--yes", action="store_true", help="start many runs without asking")
    parser.add_argument("--no-triggers", action="store_true", help="skip evals/triggers.json")
    parser.add_argument("--max-cost", type=float, metavar="USD")
    parser.add_argument("--max-tokens", type=int, metavar="N")
    parser.add_argument("--timeout", type=float, metavar="S", help="each run's time limit")
    parser.add_argument("--check-timeout", type=float, default=600.0, metavar="S")
    parser.add_argument(
        "--sandbox",
        choices=MODES,
        help="the box of the runs' commands and the checks (default: the sandbox setting)",
    )


def request_of(
    args: dict[str, Any], model: str | None, api_base: str | None, api_key: str | None
) -> EvalRequest:
    """The request of `args`: the options above by their names with `_` (`enforcer` the text
    `off,warn` or a list of modes)."""
    from workbench.evals.engine import EvalRequest  # the engine loads sessions: not at start
    from workbench.sweeps.executor import Budget

    def get(name: str, default: Any = None) -> Any:
        value = args.get(name)
        return default if value is None else value

    enforcer = get("enforcer", [])
    modes = enforcer.split(",") if isinstance(enforcer, str) else list(enforcer)
    against = get("against")
    return EvalRequest(
        repeat=int(get("repeat", 3)),
        model=model,
        api_base=api_base,
        api_key=api_key,
        grader=get("grader"),
        against=Path(against).expanduser() if against else None,
        enforcer=[str(m).strip() for m in modes if str(m).strip()],
        catalog=get("catalog"),
        ablate=bool(get("ablate", False)),
        triggers=not get("no_triggers", False),
        budget=Budget(get("max_cost"), get("max_tokens")),
        check_timeout_s=float(get("check_timeout", 600.0)),
        timeout_s=get("timeout"),
    )


def to_ask(total: int, args: dict[str, Any]) -> bool:
    """Whether `total` runs are asked about before they start: an ablation above `ASK_ABOVE`
    runs without `yes`."""
    return bool(args.get("ablate")) and total > ASK_ABOVE and not args.get("yes")


def too_many(total: int) -> UsageError:
    """What is said where the question cannot be asked (no terminal, an editor, RPC)."""
    return UsageError(f"--ablate would start {total} runs", "add --yes to start them")


class _SlashParser(argparse.ArgumentParser):
    """Refuses with a `UsageError` (the front end shows it) instead of exiting the process."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"/eval: {message}", f"for example: {EXAMPLE}")


def read_slash(text: str) -> dict[str, Any]:
    """`/eval [SKILL] [options]` as the fields of the RPC form (`skill`, `repeat`, `jobs`,
    `enforcer` ...); no skill asks for none (the last evals are shown)."""
    parser = _SlashParser(prog="/eval", add_help=False)
    add_eval_options(parser)
    parser.add_argument("skill", nargs="?")
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise UsageError(f"/eval: {exc}", f"for example: {EXAMPLE}") from exc
    return vars(parser.parse_args(words))


def skills_under(path: Path) -> list[Skill]:
    """The skill at `path`, or every skill below it that has evals."""
    from workbench.skills.discover import load_paths
    from workbench.skills.evals_file import EVALS_FILE, TRIGGERS_FILE

    if not path.exists():
        raise UsageError(f"{path}: no such folder", "name a skill folder or a folder of skills")
    found = load_paths([path], use_cache=False).graph.skills.values()
    here = [s for s in found if s.path.parent.resolve() == path.resolve()]
    if here:
        return here
    tested = [
        s
        for s in found
        if (s.path.parent / EVALS_FILE).is_file() or (s.path.parent / TRIGGERS_FILE).is_file()
    ]
    if not tested:
        raise UsageError(
            f"{path}: no skill with evals/evals.json below it",
            "docs/evals.md shows how to write a skill's evals",
        )
    return sorted(tested, key=lambda s: s.name)


def skill_named(project_root: Path, text: str) -> Skill:
    """The project's skill called `text`, else the one skill in the folder `text` names."""
    from workbench.skills.discover import load_project_skills

    found = load_project_skills(project_root).graph.get(text)
    if found is not None:
        return found
    path = Path(text).expanduser()
    skills = skills_under(path if path.is_absolute() else project_root / path)
    if len(skills) > 1:
        names = ", ".join(s.name for s in skills)
        raise UsageError(f"{text} holds several skills with evals: {names}", "name one of them")
    return skills[0]
