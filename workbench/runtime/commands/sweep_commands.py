"""The sweep's commands: `sweep` (one question as several variants at once, each on its own
branch, compared), `sweeps` (the session's) and `stop_sweep`.

The slash form takes the options of `workbench sweep` (`/sweep --variant model=a --variant
model=b --check "pytest -q" -- question`, or `/sweep --resume sweep-2` to run only what a sweep
is missing); the RPC form takes them as fields (`variants`: the list of `--variant` texts,
`resume`: the sweep's id). The result is the sweep: its table as text, its comparison as JSON.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from workbench.runtime.commands.registry import SURFACES, AnyCommand, Args, Argument, CommandSpec

if TYPE_CHECKING:
    from workbench.runtime.workbench import Workbench
    from workbench.sweeps.record import Sweep


def _read(text: str) -> dict[str, Any]:
    from workbench.sweeps.options import read_slash

    return read_slash(text)


async def _sweep(wb: Workbench, args: Args) -> Sweep:
    return await wb.sweep(dict(args))


def _sweep_text(sweep: Sweep) -> str:
    from workbench.sweeps.table import render_sweep

    return render_sweep(sweep)


async def _sweeps(wb: Workbench, args: Args) -> list[Sweep]:
    return wb.sweep_controls.sweeps()


def _sweeps_text(sweeps: list[Sweep]) -> str:
    from workbench.sweeps.table import render_list

    return render_list(sweeps)


async def _stop(wb: Workbench, args: Args) -> dict[str, bool]:
    return {"stopped": await wb.stop_sweep()}


COMMANDS: tuple[AnyCommand, ...] = (
    CommandSpec(
        "sweep",
        "run one question as several variants at once, each on its own branch, and compare them",
        SURFACES,
        (
            Argument("prompt", "a question"),
            Argument("variants", kind=list, in_text=False),
            Argument("repeat", kind=int, in_text=False),
            Argument("jobs", kind=int, in_text=False),
            Argument("check", in_text=False),
            Argument("check_timeout", kind=float, in_text=False),
            Argument("timeout", kind=float, in_text=False),
            Argument("max_cost", kind=float, in_text=False),
            Argument("max_tokens", kind=int, in_text=False),
            Argument("at", in_text=False),
            Argument("resume", in_text=False),
        ),
        _sweep,
        _sweep_text,
        lambda sweep: sweep.to_json(),
        args_usage="[--variant K=V ...] [--repeat N] [--check CMD] -- question | --resume ID",
        parse=_read,
        example='/sweep --variant model=openai/gpt-4.1 --check "pytest -q" -- fix the bug',
        fence="",
        background=True,
    ),
    CommandSpec(
        "sweeps",
        "list a session's sweeps",
        frozenset({"cli", "acp", "rpc"}),
        run=_sweeps,
        render=_sweeps_text,
        to_json=lambda sweeps: [s.to_json() for s in sweeps],
        fence="",
    ),
    CommandSpec(
        "stop_sweep",
        "stop every run of the running sweep; each keeps what it did",
        frozenset({"rpc"}),
        run=_stop,
    ),
)
