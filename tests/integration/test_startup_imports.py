"""Start-up stays light: `--help`, `--version`, `lint` and `graph` never import the heavy parts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HEAVY = {"litellm", "git", "textual", "networkx", "acp", "pydantic"}


def imported_modules(*args: str) -> set[str]:
    """Top-level names of every module `workbench ARGS` imports, from `-X importtime`."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "workbench", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    names = set()
    for line in result.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip().split(".")[0])
    assert "workbench" in names  # the measurement itself worked
    return names


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["--version"],
        ["lint", "skills"],
        ["lint", "--format", "json"],
        ["graph"],
        ["graph", "--format", "dot", "skills"],
    ],
)
def test_no_heavy_imports(args: list[str]) -> None:
    assert imported_modules(*args) & HEAVY == set()


def test_the_graph_still_offers_networkx_when_asked() -> None:
    """The lazy `digraph` property is the one place networkx loads."""
    code = (
        "import sys; from workbench.skills.discover import load_paths;"
        "from pathlib import Path; s = load_paths([Path('skills')], use_cache=False);"
        "assert 'networkx' not in sys.modules;"
        "g = s.graph.digraph; print(g.number_of_nodes(), g.number_of_edges())"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    nodes, edges = map(int, result.stdout.split())
    assert nodes >= 12 and edges >= 11
