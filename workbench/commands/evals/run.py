"""`workbench eval PATH`: a skill's evals run with and without it (and the other configurations
asked for), graded and compared (docs/evals.md)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.commands._session import api_key, open_or_create
from workbench.commands.sweeps.executors import add_executor_options, choose_executor, where
from workbench.errors import UsageError
from workbench.text import count_of

if TYPE_CHECKING:
    from workbench.evals.engine import EvalRequest
    from workbench.evals.results import EvalReport
    from workbench.sweeps.record import Run


def configure(parser: argparse.ArgumentParser) -> None:
    from workbench.evals.options import add_eval_options

    parser.add_argument("path", help="a skill folder, or a folder of skills")
    parser.add_argument("--session", metavar="ID", help="record the runs in this session")
    add_eval_options(parser)
    add_executor_options(parser)
    parser.add_argument("--model", help="the model the runs use")
    parser.add_argument("--api-base")
    parser.add_argument("--api-key")
    parser.add_argument("--api-key-file")
    parser.add_argument("--format", choices=("table", "json"), default="table")
    parser.add_argument("--out", metavar="DIR", help="write benchmark.json and report.html")
    parser.set_defaults(branch=None, show=None, resume=None)


def _request(args: argparse.Namespace) -> EvalRequest:
    from workbench.evals.options import request_of

    return request_of(vars(args), args.model, args.api_base, api_key(args))


def _confirm(total: int, args: argparse.Namespace) -> None:
    """Above `ASK_ABOVE` runs of an ablation, ask first (a terminal) or want `--yes`."""
    from workbench.evals.options import to_ask, too_many

    if not to_ask(total, vars(args)):
        return
    if not sys.stdin.isatty():
        raise too_many(total)
    answer = input(f"--ablate starts {total} runs; go on? [y/N] ")
    if answer.strip().lower() not in ("y", "yes"):
        raise UsageError("nothing started", None)


def _print(reports: list[EvalReport], fmt: str) -> None:
    from workbench.evals.text import render_report

    if fmt == "json":
        docs = [r.to_json() for r in reports]
        print(json.dumps(docs[0] if len(docs) == 1 else docs, indent=2, ensure_ascii=False))
    else:
        print("\n\n".join(render_report(r) for r in reports))


def run(args: argparse.Namespace) -> int:
    from workbench.evals.engine import evaluate, plan
    from workbench.evals.options import skills_under
    from workbench.evals.saved import save_last, write_out
    from workbench.sweeps.table import run_line

    request = _request(args)
    skills = skills_under(Path(args.path).expanduser())
    said: dict[str, str] = {}

    def progress(run: Run) -> None:
        if said.get(run.branch) != run.outcome:
            said[run.branch] = run.outcome
            print(run_line(run), file=sys.stderr)

    with open_or_create(args) as session:
        from workbench.sandbox import choose_sandbox

        box = choose_sandbox(session.settings, args.sandbox)
        for notice in box.notices:
            print(f"workbench: {notice}", file=sys.stderr)
        request.sandbox = box.policy
        plans = [plan(session, skill, request) for skill in skills]
        total = sum(p.total for p in plans)
        for p in plans:
            print(
                f"{p.skill.name}: {count_of(len(p.cases), 'case')} × "
                f"{count_of(len(p.configurations), 'configuration')}"
                f" ({', '.join(c.name for c in p.configurations)})"
                + (f" + {len(p.triggers)} trigger queries" if p.triggers else "")
                + f" × {p.repeat} = {p.total} runs",
                file=sys.stderr,
            )
        print(f"{total} runs, {where(args)}", file=sys.stderr)
        _confirm(total, args)

        async def go() -> list[EvalReport]:
            executor = choose_executor(args, session.location)
            return [await evaluate(session, p, request, executor, progress) for p in plans]

        try:
            reports = asyncio.run(go())
        except KeyboardInterrupt:
            print("workbench: the eval was stopped; each run kept what it did", file=sys.stderr)
            return 130
        for report in reports:
            save_last(session.location.project_root, report)
    _print(reports, args.format)
    if args.out:
        out = Path(args.out).expanduser()
        for report in reports:
            page = write_out(report, out if len(reports) == 1 else out / report.skill)
            print(f"workbench: wrote {page} and its benchmark.json", file=sys.stderr)
    for report in reports:
        if report.stopped:
            print(f"workbench: {report.stopped}", file=sys.stderr)
    return 0
