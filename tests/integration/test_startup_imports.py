"""Start-up stays light: `--help`, `--version`, `lint` and `graph` never import the heavy parts."""

from __future__ import annotations

import os
import shutil
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


WITH_ATEXIT = (
    "import atexit, runpy, sys; atexit.register(print, 'torn down', file=sys.stderr); "
    "sys.argv[0] = 'workbench'; runpy.run_module('workbench', run_name='__main__')"
)
"""`workbench ARGS` with an exit handler, which the interpreter's teardown would run."""
GIT_SHIM = '#!/bin/sh\nprintf "%s\\n" "$*" >> "$0.log"\nexec {git} "$@"\n'
"""A `git` first on PATH that logs each command line beside itself, then runs the real one."""
FORK_IMPORTS_NOT = {
    *("git", "asyncio", "concurrent"),
    *("socket", "uuid", "tempfile", "shutil", "hashlib"),
}
"""GitPython (~0.1 s) only wrapped the spawn and asyncio (with ssl, ~0.06 s) only carried the
call to the session's worker thread; the others (~25 ms) served what a fork does not do, and
hashlib loads OpenSSL for the SHA-1 of the one object a fork writes."""


def test_a_fork_starts_few_gits_imports_only_what_it_needs_and_ends_at_once(
    tmp_path: Path,
) -> None:
    """`workbench fork` runs git itself, one git for each thing it must ask or do (the session's
    path is not read, the project is not asked for an earlier layout's refs it has no trace
    of), imports nothing it does not use, and ends without the interpreter's teardown."""
    project = make_project(tmp_path / "project")
    run_workbench("-p", "hello", "--model", "demo", cwd=project)
    shim = tmp_path / "bin" / "git"
    shim.parent.mkdir()
    shim.write_text(GIT_SHIM.format(git=shutil.which("git")))
    shim.chmod(0o755)
    env = {**os.environ, "PATH": f"{shim.parent}:{os.environ['PATH']}"}
    forked = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", WITH_ATEXIT, "fork", "exp"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert forked.returncode == 0, forked.stderr[-2000:]
    assert forked.stdout.startswith("forked exp from main")
    assert "torn down" not in forked.stderr, "the fork ran the interpreter's teardown (~15 ms)"
    names = [line.rsplit("|", 1)[1] for line in forked.stderr.splitlines() if "|" in line]
    modules = {name.strip() for name in names[names.index(" site") + 1 :]}  # not the tests' own
    assert "workbench.sessions.session" in modules  # the measurement itself worked
    assert {m.split(".")[0] for m in modules} & FORK_IMPORTS_NOT == set()
    assert "workbench.redaction" not in modules, "a lock compiled the credential patterns"
    commands = [line.split() for line in (tmp_path / "bin" / "git.log").read_text().splitlines()]
    asked = [
        next(word for word in c if not word.startswith("-") and "=" not in word) for c in commands
    ]
    assert "log" not in asked, "the fork read the session's path, which it does not use"
    assert len(asked) <= 9, f"more gits than a fork needs: {asked}"
    listed = git(project, "worktree", "list", "--porcelain")
    assert "branch refs/heads/wb/" in listed and listed.count("worktree ") == 2


def test_a_session_without_mcp_servers_never_imports_the_sdk(tmp_path: Path) -> None:
    """The MCP SDK (seconds to import on a loaded machine) loads only when a server is
    configured."""
    project = make_project(tmp_path / "project")
    names = imported_modules("-p", "hello", "--model", "demo", "--no-session", cwd=project)
    assert "mcp" not in names
