"""A sweep's options, read the same way wherever a sweep is asked for: `workbench sweep` on the
command line, `/sweep` in the app or an editor, `sweep` over RPC.

`add_run_options` gives a parser the options of the runs (variants, repeats, jobs, check, time
and spend limits, the sweep to resume); `request_of` makes the engine's `SweepRequest` from what
was read; `read_slash` reads the text of `/sweep ... -- question` with those same options.
"""

from __future__ import annotations

import argparse
import os
import shlex
from typing import TYPE_CHECKING, Any, NoReturn

from workbench.errors import UsageError
from workbench.sandbox.policy import MODES

if TYPE_CHECKING:
    from workbench.sweeps.engine import SweepRequest

EXAMPLE = "/sweep --variant model=openai/gpt-4.1 --variant enforcer.mode=off -- fix the bug"


def add_run_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="K=V[,K=V]",
        help="one variant: model, prompt (text or @file), system_prompt_append or a settings key",
    )
    parser.add_argument("--repeat", type=int, default=1, help="runs of each variant (default 1)")
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="runs at once (default: cores)"
    )
    parser.add_argument("--check", metavar="CMD", help="run in each worktree after its agent")
    parser.add_argument(
        "--sandbox",
        choices=MODES,
        help="the box of the runs' commands and the checks (default: the sandbox setting)",
    )
    parser.add_argument("--check-timeout", type=float, default=600.0, metavar="S")
    parser.add_argument(
        "--timeout", type=float, metavar="S", help="each run's time limit (default: none)"
    )
    parser.add_argument("--max-cost", type=float, metavar="USD")
    parser.add_argument("--max-tokens", type=int, metavar="N")
    parser.add_argument("--resume", metavar="ID", help="run only what sweep ID is missing")


def request_of(
    args: dict[str, Any],
    prompt: str,
    model: str | None,
    api_base: str | None,
    api_key: str | None,
) -> SweepRequest:
    """The request of `args`: the options above by their names with `_` (as RPC's fields),
    `variants` the list of `--variant` texts."""
    from workbench.sweeps.engine import SweepRequest  # the engine loads sessions: not at start
    from workbench.sweeps.executor import Budget
    from workbench.sweeps.variants import parse_variants

    def get(name: str, default: Any = None) -> Any:
        value = args.get(name)
        return default if value is None else value

    variants = parse_variants(list(get("variants", [])))
    return SweepRequest(
        prompt,
        variants,
        repeat=int(get("repeat", 1)),
        at=get("at"),
        check=get("check"),
        check_timeout_s=float(get("check_timeout", 600.0)),
        timeout_s=get("timeout"),
        model=model,
        api_base=api_base,
        api_key=api_key,
        budget=Budget(get("max_cost"), get("max_tokens")),
    )


class _SlashParser(argparse.ArgumentParser):
    """Refuses with a `UsageError` (the front end shows it) instead of exiting the process."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"/sweep: {message}", f"for example: {EXAMPLE}")


def read_slash(text: str) -> dict[str, Any]:
    """`/sweep [options] -- question` as the fields of the RPC form (`variants`, `repeat`,
    `jobs`, `check`, `resume` ..., `prompt`); an empty text asks for none (the app shows the last
    sweep)."""
    parser = _SlashParser(prog="/sweep", add_help=False)
    add_run_options(parser)
    parser.add_argument("prompt", nargs="*")
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise UsageError(f"/sweep: {exc}", f"for example: {EXAMPLE}") from exc
    found = vars(parser.parse_args(words))
    found["variants"] = found.pop("variant")
    found["prompt"] = " ".join(found["prompt"]).strip() or None
    return found
