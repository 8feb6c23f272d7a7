"""Where an eval's report is written: `--out DIR` (benchmark.json and report.html), and each
skill's last report kept beside the project's sessions, for `/eval` and the skill detail view."""

from __future__ import annotations

import json
from pathlib import Path

from workbench.evals.html_report import render_html
from workbench.evals.results import EvalReport
from workbench.sessions.store.location import StorageLocation

BENCHMARK, REPORT = "benchmark.json", "report.html"


def write_out(report: EvalReport, folder: Path) -> Path:
    """`benchmark.json` and `report.html` in `folder` (made if missing); the report's path."""
    folder.mkdir(parents=True, exist_ok=True)
    text = json.dumps(report.benchmark(), indent=2, ensure_ascii=False)
    (folder / BENCHMARK).write_text(text + "\n", encoding="utf-8")
    (folder / REPORT).write_text(render_html(report), encoding="utf-8")
    return folder / REPORT


def _folder(location: StorageLocation) -> Path:
    return location.git_dir.parent / "evals"


def save_last(location: StorageLocation, report: EvalReport) -> Path:
    """Keep `report` as the skill's last eval (its folder holds the benchmark and the page)."""
    return write_out(report, _folder(location) / report.skill)


def load_last(location: StorageLocation, skill: str) -> EvalReport | None:
    """The skill's last eval, or None when it has none (or it cannot be read)."""
    path = _folder(location) / skill / BENCHMARK
    try:
        return EvalReport.from_benchmark(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def evaluated(location: StorageLocation) -> list[str]:
    """The skills with a last eval, by name."""
    folder = _folder(location)
    return sorted(p.parent.name for p in folder.glob(f"*/{BENCHMARK}")) if folder.is_dir() else []
