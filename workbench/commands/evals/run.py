"""`workbench eval PATH`: a skill's evals run with and without it (and the other configurations
asked for), graded and compared (docs/evals.md)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.commands._session import api_key, open_or_create
from workbench.errors import UsageError
from workbench.sandbox.policy import MODES
from workbench.text import count_of

if TYPE_CHECKING:
    from workbench.evals.engine import EvalRequest
    from workbench.evals.results import EvalReport
    from workbench.skills.model import Skill
    from workbench.sweeps.record import Run

ASK_ABOVE = 20
"""`--ablate` asks before starting more runs than this (`--yes` does not ask)."""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="a skill folder, or a folder of skills")
    parser.add_argument("--session", metavar="ID", help="record the runs in this session")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each case (default 3)")
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="runs at once (default: cores)"
    )
    parser.add_argument("--executor", choices=("local",), default="local")
    parser.add_argument("--model", help="the model the runs use")
    parser.add_argument("--api-base")
    parser.add_argument("--api-key")
    parser.add_argument("--api-key-file")
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
    parser.add_argument("--format", choices=("table", "json"), default="table")
    parser.add_argument("--out", metavar="DIR", help="write benchmark.json and report.html")
    parser.set_defaults(branch=None, show=None, resume=None)


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


def _request(args: argparse.Namespace) -> EvalRequest:
    from workbench.evals.engine import EvalRequest
    from workbench.sweeps.executor import Budget

    modes = [m.strip() for m in (args.enforcer or "").split(",") if m.strip()]
    return EvalRequest(
        repeat=args.repeat,
        model=args.model,
        api_base=args.api_base,
        api_key=api_key(args),
        grader=args.grader,
        against=Path(args.against).expanduser() if args.against else None,
        enforcer=modes,
        catalog=args.catalog,
        ablate=args.ablate,
        triggers=not args.no_triggers,
        budget=Budget(args.max_cost, args.max_tokens),
        check_timeout_s=args.check_timeout,
        timeout_s=args.timeout,
    )


def _confirm(total: int, args: argparse.Namespace) -> None:
    """Above `ASK_ABOVE` runs of an ablation, ask first (a terminal) or want `--yes`."""
    if not args.ablate or total <= ASK_ABOVE or args.yes:
        return
    if not sys.stdin.isatty():
        raise UsageError(f"--ablate would start {total} runs", "add --yes to start them")
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
    from workbench.evals.saved import save_last, write_out
    from workbench.sweeps.executor import LocalExecutor
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
        print(f"{total} runs, {args.jobs} at once", file=sys.stderr)
        _confirm(total, args)

        async def go() -> list[EvalReport]:
            executor = LocalExecutor(args.jobs)
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
