"""`workbench sweep --variant K=V ... -- PROMPT`: one question as several variants at once, each
on its own branch and worktree, checked and compared (docs/sweeps.md)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import TYPE_CHECKING

from workbench.commands._session import add_session_option, api_key, open_or_create
from workbench.commands.sweeps.executors import add_executor_options, choose_executor, where
from workbench.errors import UsageError
from workbench.sweeps.options import add_run_options
from workbench.text import count_of

if TYPE_CHECKING:
    from workbench.sessions.session import Session
    from workbench.sweeps.engine import SweepRequest
    from workbench.sweeps.record import Run, Sweep


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("prompt", nargs="*", help="the question, after --")
    add_session_option(parser)
    parser.add_argument("--branch", metavar="NAME", help="sweep from this branch's head")
    parser.add_argument("--at", metavar="ENTRY", help="sweep from this entry (id, prefix, label)")
    add_run_options(parser)
    parser.add_argument("--format", choices=("table", "json"), default="table")
    parser.add_argument("--model", help="every variant's model unless it names its own")
    parser.add_argument("--api-base")
    parser.add_argument("--api-key")
    parser.add_argument("--api-key-file")
    parser.add_argument("--show", metavar="ID", help="print sweep ID again")
    add_executor_options(parser)


def _print(sweep: Sweep, fmt: str) -> None:
    from workbench.sweeps.table import render_sweep

    print(json.dumps(sweep.to_json(), indent=2) if fmt == "json" else render_sweep(sweep))


def _request(args: argparse.Namespace) -> SweepRequest:
    from workbench.sweeps.options import request_of

    prompt = " ".join(args.prompt).strip()
    request = request_of(
        {**vars(args), "variants": args.variant}, prompt, args.model, args.api_base, api_key(args)
    )
    if not (args.show or args.resume or prompt or all(v.prompt for v in request.variants)):
        raise UsageError(
            "sweep needs a question",
            "for example: workbench sweep --variant model=openai/gpt-4.1 -- fix the bug",
        )
    request.checkout = args.executor == "local"  # Ray's runs work on its workers
    return request


def run(args: argparse.Namespace) -> int:
    from workbench.sweeps.engine import find_sweep, run_sweep, start_sweep
    from workbench.sweeps.table import run_line

    request = _request(args)
    said: dict[str, str] = {}

    def progress(run: Run) -> None:
        if said.get(run.branch) != run.outcome:  # a run's lines come often; each state once
            said[run.branch] = run.outcome
            print(run_line(run), file=sys.stderr)

    started: list[Sweep] = []

    async def go(session: Session) -> Sweep:
        executor = choose_executor(args, session.location)
        if args.resume:
            sweep = find_sweep(session, args.resume)
        else:
            sweep = await start_sweep(session, request)
        started.append(sweep)
        runs = count_of(len(sweep.missing()), "run")
        print(f"{sweep.id}: {runs}, {where(args)}", file=sys.stderr)
        return await run_sweep(session, sweep, request, executor, progress)

    with open_or_create(args) as session:
        if args.show:
            _print(find_sweep(session, args.show), args.format)
            return 0
        from workbench.sandbox import choose_sandbox

        box = choose_sandbox(session.settings, args.sandbox)
        for notice in box.notices:
            print(f"workbench: {notice}", file=sys.stderr)
        request.sandbox = box.policy
        try:
            sweep = asyncio.run(go(session))
        except KeyboardInterrupt:
            if started:
                print(
                    f"workbench: {started[0].id} stopped; every run ended and kept what it did"
                    f"\n  hint: `workbench sweep --resume {started[0].id}` runs the rest",
                    file=sys.stderr,
                )
            return 130
    _print(sweep, args.format)
    if sweep.stopped:
        print(f"workbench: {sweep.stopped}", file=sys.stderr)
    return 0
