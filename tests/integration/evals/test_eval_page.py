"""The eval's HTML report: one self-contained file, every run's text escaped, and (where
Debian's `chromium` is installed, never in CI) opened in a real headless browser."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from workbench.evals.grading import Graded
from workbench.evals.results import EvalReport, EvalRun
from workbench.evals.saved import write_out
from workbench.evals.uptake import Uptake

HOSTILE = '<script>document.title="pwned"</script><img src="http://example.com/x.png">'


def report() -> EvalReport:
    runs = []
    for configuration, passed in (("with_skill", True), ("without_skill", False)):
        for repeat in (1, 2, 3):
            verdict = "passed" if passed else "failed"
            runs.append(
                EvalRun(
                    "the-answer",
                    configuration,
                    repeat,
                    f"sweep-1.the-answer-{configuration}-{repeat}",
                    "done",
                    passed,
                    [
                        Graded(
                            "assertion",
                            "The answer says 42.",
                            verdict,
                            "says 42" if passed else HOSTILE,
                        )
                    ],
                    seconds=10.0 + repeat,
                    uptake=Uptake(loaded=passed, turn=2 if passed else None, layers=["compound"]),
                    output=f"The answer is {42 if passed else 41}. {HOSTILE}",
                )
            )
    case = {"id": "the-answer", "prompt": "What is the answer?", "expected_output": "42"}
    return EvalReport("compound-answer", [case], ["with_skill", "without_skill"], runs, "sweep-1")


def test_the_page_is_one_file_that_fetches_nothing_and_shows_text_as_text(tmp_path: Path) -> None:
    page = write_out(report(), tmp_path / "out").read_text()
    assert (tmp_path / "out" / "benchmark.json").is_file()
    assert "<script" not in page and "<img" not in page
    assert not re.search(r"""(src|href)=["']?https?:""", page)
    assert "&lt;script&gt;" in page and "Content-Security-Policy" in page
    assert page.count('class="bar"') == 4  # pass rate and uptake for each configuration
    assert "with_skill passes more often: +100% over 3 and 3 runs" in page


@pytest.mark.skipif(
    shutil.which("chromium") is None or bool(os.environ.get("CI")),
    reason="needs Debian's chromium, and never runs in CI",
)
def test_the_page_opens_in_headless_chromium(tmp_path: Path) -> None:
    page = write_out(report(), tmp_path / "out")
    done = subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    dom = done.stdout
    assert "<title>Eval of compound-answer</title>" in dom, done.stderr[-2000:]
    assert "pwned" not in re.search(r"<title>(.*?)</title>", dom).group(1)  # type: ignore[union-attr]
    assert dom.count('class="bar"') == 4 and "<svg" in dom
    assert dom.count('<div class="run">') == 6
    assert "&lt;script&gt;" in dom
