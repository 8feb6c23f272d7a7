"""`workbench export` of a branch a sweep started from: the sweep's tables (its runs, then its
variants best first) where the sweep was recorded, once, as it ended."""

from __future__ import annotations

import time
from html.parser import HTMLParser
from pathlib import Path

from support.session_entries import cli, run, user

from workbench.sessions.session import Session
from workbench.sweeps.engine import save
from workbench.sweeps.record import Check, Run, Sweep, Tokens
from workbench.sweeps.variants import Variant

QUESTION = "which model fixes <script>alert(1)</script> best?"


class Tables(HTMLParser):
    """The sweep tables of a page: rows of cell texts, and which rows stand out."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self.best: list[str] = []
        self._in_sweep = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table" and ("class", "sweep") in attrs:
            self._in_sweep = True
            self.tables.append([])
        elif self._in_sweep and tag == "tr":
            self.tables[-1].append([])
            if ("class", "best") in attrs:
                self.best.append(str(len(self.tables) - 1))
        elif self._in_sweep and tag in ("td", "th"):
            self.tables[-1][-1].append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._in_sweep = False

    def handle_data(self, data: str) -> None:
        if self._in_sweep and self.tables[-1] and self.tables[-1][-1]:
            self.tables[-1][-1][-1] += data


def record_a_sweep(project: Path) -> str:
    """A sweep of two variants recorded as it started (queued) and again as it ended."""
    with Session.create(project) as session:
        run(session.store.append("user", user("the parser is slow")))
        variants = [
            Variant("good", "model=openai/good", model="openai/good"),
            Variant("bad", "model=openai/bad", model="openai/bad"),
        ]
        runs = [Run("sweep-1.bad-1", "bad", 1), Run("sweep-1.good-1", "good", 1)]
        sweep = Sweep(
            "sweep-1", session.id, "main", None, QUESTION, "pytest -q", variants, runs, time.time()
        )
        run(save(session, sweep))
        bad, good = runs
        bad.outcome, bad.check = "done", Check(False, 1, "1 failed")
        good.outcome, good.check = "done", Check(True, 0, "3 passed")
        for figures, cost in ((bad, 0.02), (good, 0.0412)):
            figures.tokens, figures.cost, figures.seconds = Tokens(17102, 1310), cost, 21.3
            figures.files_changed, figures.lines_added, figures.lines_removed = 1, 4, 2
        run(save(session, sweep))
        return session.id


def test_html_export_shows_the_sweeps_runs_and_its_variants_best_first(
    project: Path, tmp_path: Path
) -> None:
    sid = record_a_sweep(project)
    out = tmp_path / "out.html"
    done = cli(project, "export", "--session", sid, "-o", str(out))
    assert done.returncode == 0, done.stderr
    page = out.read_text()
    tables = Tables()
    tables.feed(page)
    runs, variants = tables.tables  # the newest record only: not the queued one before it
    assert runs[0] == [
        "run", "outcome", "check", "tokens in", "tokens out", "cost", "seconds", "files"
    ]  # fmt: skip
    assert runs[1:] == [
        ["sweep-1.bad-1", "done", "✗ fail (1)", "17102", "1310", "$0.0200", "21.3", "1 +4 -2"],
        ["sweep-1.good-1", "done", "✓ pass", "17102", "1310", "$0.0412", "21.3", "1 +4 -2"],
    ]
    assert [row[:3] for row in variants[1:]] == [["good", "1/1", "100%"], ["bad", "0/1", "0%"]]
    assert tables.best == ["1"]  # the best variant's row stands out
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)" in page
    assert page.count('<table class="sweep">') == 2


def test_markdown_export_shows_the_sweeps_tables(project: Path) -> None:
    sid = record_a_sweep(project)
    done = cli(project, "export", "--session", sid, "--format", "md", "-o", "-")
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert "| sweep-1.good-1 | done | ✓ pass | 17102 | 1310 | $0.0412 | 21.3 | 1 +4 -2 |" in text
    good = text.index("| good | 1/1 | 100% |")
    assert good < text.index("| bad | 0/1 | 0% |")
    assert "<script>" not in text
