"""A fork's worktree whose `git worktree add` was killed during the checkout is made again, and
the tools never run in the half-made folder; a git still making it is waited for, not undone.

The half-made state is made for real: workbench's own `Workspaces.ensure` runs in a child
process and starts `git worktree add`; every file of the project passes a smudge filter that, while
configured, says it started and then waits for a flag file, so the checkout is held at its first
file for as long as the test needs. SIGKILL to git's process group (git runs in a session of its
own) then stops it exactly where a killed checkout stops: `.git` written, the admin folder locked
"initializing", the files not checked out.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support.session_entries import git, make_project, run, user

from workbench.errors import WorkbenchError
from workbench.runtime import Workbench, WorkbenchOptions
from workbench.sessions.session import Session
from workbench.sessions.workspaces import workspace as workspace_module

FILES = {f"src/file{n:02}.txt": f"line {n}\n" for n in range(40)}
ENSURE_IN_A_CHILD = """
import sys
from pathlib import Path
from workbench.sessions.session import Session
with Session.open(Path(sys.argv[1]), branch="exp") as session:
    session.workspace()
"""


def wait_until(condition: Callable[[], bool], what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def git_adders(path: Path) -> list[int]:
    """The `git worktree add` processes of `path`, from the process table."""
    listing = subprocess.run(
        ["ps", "-A", "-ww", "-o", "pid=,args="], capture_output=True, text=True
    )
    return [
        int(line.split()[0])
        for line in listing.stdout.splitlines()
        if "worktree add" in line and str(path) in line.split()
    ]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def worktree_listing(project: Path, path: Path) -> list[str]:
    """The lines `git worktree list --porcelain` prints for the worktree at `path`."""
    blocks = git(project, "worktree", "list", "--porcelain").split("\n\n")
    return next(b.splitlines() for b in blocks if b.startswith(f"worktree {path}\n"))


@pytest.fixture
def held_fork(tmp_path: Path) -> Iterator[tuple[Path, Path, subprocess.Popen[bytes]]]:
    """A session with a branch `exp` whose worktree workbench is making, held mid-checkout:
    (project, worktree path, the child process that runs workbench's `ensure`). Whatever the
    test leaves running is released and stopped afterwards."""
    project = make_project(tmp_path / "project", {**FILES, ".gitattributes": "* filter=hold\n"})
    with Session.create(project) as session:
        run(session.store.append("user", user("try something")))
        run(session.fork("exp", defer_worktree=True))
        path = Path(session.store.record("exp").worktree.path)
    flags = tmp_path / "flags"
    flags.mkdir()
    hold = f"touch {flags}/started; while [ ! -e {flags}/release ]; do sleep 0.02; done; cat"
    git(project, "config", "filter.hold.smudge", hold)
    # a German user: git would translate its marker, were it not run as workbench runs it
    env = {**os.environ, "LANG": "C.UTF-8", "LANGUAGE": "de"}
    child = subprocess.Popen([sys.executable, "-c", ENSURE_IN_A_CHILD, str(project)], env=env)
    try:
        wait_until(lambda: (flags / "started").exists(), "the checkout to start")
        yield project, path, child
    finally:
        (flags / "release").touch()
        child.kill()
        child.wait()
        for pid in git_adders(path):
            os.killpg(pid, signal.SIGKILL)


def test_a_checkout_killed_midway_is_made_again_before_any_tool_runs(
    tmp_path: Path, held_fork: tuple[Path, Path, subprocess.Popen[bytes]]
) -> None:
    project, path, child = held_fork
    adders = git_adders(path)
    assert len(adders) == 1
    os.killpg(adders[0], signal.SIGKILL)  # git, its checkout child and the filter
    child.kill()  # and the workbench that started it
    child.wait()
    wait_until(lambda: not alive(adders[0]), "git to be gone")
    git(project, "config", "--unset", "filter.hold.smudge")

    # what a killed checkout leaves, as git itself reports it
    assert "locked initializing" in worktree_listing(project, path)
    assert (path / ".git").is_file() and not (path / "src").exists()
    with Session.open(project, readonly=True) as session:
        assert run(session.status("exp")).notes == [
            f"its worktree {path} is half-made (its checkout stopped); it is made again when "
            "the branch is used"
        ]

    script = tmp_path / "script.json"
    command = "git status --porcelain | wc -l; ls src | wc -l; cat src/file07.txt"
    turn = {"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}
    script.write_text(json.dumps([turn, {"text": "looked"}]))
    options = WorkbenchOptions(cwd=project, model=f"scripted:{script}", branch="exp")

    async def look() -> tuple[str, str]:
        workbench = await Workbench.open(options)
        try:
            await workbench.prompt("what is in the worktree?")
            await workbench.wait_idle()
            output = next(m.text for m in workbench.messages() if m.tool_name == "bash")
            return output, workbench.state().cwd
        finally:
            await workbench.close()

    output, cwd = run(look())
    assert cwd == str(path)
    assert output.splitlines()[:3] == ["0", str(len(FILES)), "line 7"]
    assert not any(line.startswith("locked") for line in worktree_listing(project, path))
    session_id = git(project, "branch", "--list", "wb/*", "--format=%(refname:short)")
    assert git(path, "rev-parse", "--abbrev-ref", "HEAD") == session_id


def test_a_worktree_a_live_git_still_makes_is_waited_for_and_never_undone(
    tmp_path: Path,
    held_fork: tuple[Path, Path, subprocess.Popen[bytes]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    project, path, child = held_fork
    child.kill()  # the workbench dies; its git, in a session of its own, goes on
    child.wait()
    (adder,) = git_adders(path)
    monkeypatch.setattr(workspace_module, "WAIT_FOR_GIT_S", 0.3)

    with Session.open(project) as session:
        with pytest.raises(WorkbenchError, match=rf"git \(pid {adder}\) is still making"):
            session.workspace("exp")
        assert "locked initializing" in worktree_listing(project, path)  # left to that git
        (tmp_path / "flags" / "release").touch()
        wait_until(lambda: not alive(adder), "git to finish the checkout")
        assert session.workspace("exp") == path

    assert git(path, "status", "--porcelain") == ""
    assert (path / "src" / "file07.txt").read_text() == "line 7\n"
    assert not any(line.startswith("locked") for line in worktree_listing(project, path))
