"""Where an eval's report is written: `--out DIR` (benchmark.json and report.html), and each
skill's last report kept beside the project's sessions (`.git/workbench/evals/SKILL/`), for
`/eval` and the skill detail view."""

from __future__ import annotations

import json
from pathlib import Path

from workbench.errors import UsageError
from workbench.evals.html_report import render_html
from workbench.evals.results import EvalReport
from workbench.sessions.store.location import project_git_dir

BENCHMARK, REPORT = "benchmark.json", "report.html"


def write_out(report: EvalReport, folder: Path) -> Path:
    """`benchmark.json` and `report.html` in `folder` (made if missing); the report's path."""
    folder.mkdir(parents=True, exist_ok=True)
    text = json.dumps(report.benchmark(), indent=2, ensure_ascii=False)
    (folder / BENCHMARK).write_text(text + "\n", encoding="utf-8")
    (folder / REPORT).write_text(render_html(report), encoding="utf-8")
    return folder / REPORT


def _folder(project_root: Path) -> Path | None:
    common = project_git_dir(project_root)
    return common / "workbench" / "evals" if common is not None else None


def save_last(project_root: Path, report: EvalReport) -> Path:
    """Keep `report` as the skill's last eval (its folder holds the benchmark and the page)."""
    folder = _folder(project_root)
    if folder is None:
        raise UsageError(f"{project_root} is not a git repository", "evals run in git projects")
    return write_out(report, folder / report.skill)


def load_last(project_root: Path, skill: str) -> EvalReport | None:
    """The skill's last eval, or None when it has none (or it cannot be read)."""
    folder = _folder(project_root)
    if folder is None:
        return None
    try:
        data = json.loads((folder / skill / BENCHMARK).read_text(encoding="utf-8"))
        return EvalReport.from_benchmark(data)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def has_eval(project_root: Path, skill: str) -> bool:
    """Whether the skill has a last eval (a stat, cheap enough for opening a view)."""
    folder = _folder(project_root)
    return folder is not None and (folder / skill / BENCHMARK).is_file()


def evaluated(project_root: Path) -> list[str]:
    """The skills with a last eval, by name."""
    folder = _folder(project_root)
    if folder is None or not folder.is_dir():
        return []
    return sorted(p.parent.name for p in folder.glob(f"*/{BENCHMARK}"))


def last_eval_text(project_root: Path, skill: str | None, short: bool = False) -> str:
    """The skill's last eval as text (`short`: its summary lines); without a skill, every
    evaluated skill's. Says how to run one when there is none."""
    from workbench.evals.text import render_report, summary_lines

    names = [skill] if skill else evaluated(project_root)
    reports = [r for r in (load_last(project_root, n) for n in names) if r]
    if not reports:
        about = f"{skill} has no eval yet" if skill else "no skill of this project has an eval yet"
        return f"{about}: `workbench eval PATH` or `/eval SKILL` runs one (docs/evals.md)"
    if short:
        return "\n\n".join(f"{r.skill}\n" + "\n".join(summary_lines(r)) for r in reports)
    return "\n\n".join(render_report(r) for r in reports)
