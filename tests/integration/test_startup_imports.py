"""Start-up stays light: `--help`, `--version`, `lint` and `graph` never import the heavy parts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.git_project import git, make_project
from support.workbench_process import run_workbench

REPO = Path(__file__).resolve().parents[2]
HEAVY = {"litellm", "git", "textual", "networkx", "acp", "pydantic", "mcp"}


def imported_modules(*args: str, cwd: Path = REPO) -> set[str]:
    """Top-level names of every module `workbench ARGS` imports, from `-X importtime`."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "workbench", *args],
        cwd=cwd,
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


def test_a_fork_runs_git_without_gitpython_or_an_event_loop(tmp_path: Path) -> None:
    """`workbench fork` makes its worktree with git itself: GitPython's import (~0.1 s) only
    wrapped the spawn, and asyncio (with ssl, ~0.06 s) only carried the call to the session's
    worker thread."""
    project = make_project(tmp_path / "project")
    run_workbench("-p", "hello", "--model", "demo", cwd=project)
    assert {"git", "asyncio", "concurrent"} & imported_modules("fork", "exp", cwd=project) == set()
    listed = git(project, "worktree", "list", "--porcelain")
    assert "branch refs/heads/wb/" in listed and listed.count("worktree ") == 2


def test_a_session_without_mcp_servers_never_imports_the_sdk(tmp_path: Path) -> None:
    """The MCP SDK (seconds to import on a loaded machine) loads only when a server is
    configured."""
    project = make_project(tmp_path / "project")
    names = imported_modules("-p", "hello", "--model", "demo", "--no-session", cwd=project)
    assert "mcp" not in names
