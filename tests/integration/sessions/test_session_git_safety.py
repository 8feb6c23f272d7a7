"""Our git plumbing never runs a repository's hooks or programs; a store that came with a folder
is not written to; /commit leaves the user's staging area alone until the commit exists."""

from __future__ import annotations

import os
import signal
import stat
import time
from pathlib import Path

import pytest
from support.session_entries import assistant, git, run, spawn_python, user
from support.workbench_process import run_workbench

from workbench.errors import UsageError
from workbench.sessions.session import Session
from workbench.sessions.store.gitcmd import GitRunner
from workbench.sessions.store.location import STORE_MARKER, ensure_storage

LOGGING_HOOK = '#!/bin/sh\necho "$(basename "$0") $*" >> "{log}"\nexit 0\n'


def install_hook(git_dir: Path, name: str, body: str) -> None:
    hook = git_dir / "hooks" / name
    hook.parent.mkdir(parents=True, exist_ok=True)
    hook.write_text(body)
    hook.chmod(hook.stat().st_mode | stat.S_IEXEC)


def hook_log(log: Path) -> list[str]:
    return log.read_text().split("\n")[:-1] if log.exists() else []


def test_a_store_that_came_with_the_folder_is_refused_and_runs_nothing(tmp_path: Path) -> None:
    folder, log = tmp_path / "download", tmp_path / "hooks.log"
    store = folder / ".pi" / "sessions.git"
    store.parent.mkdir(parents=True)
    git(tmp_path, "init", "--quiet", "--bare", str(store))
    install_hook(store, "reference-transaction", LOGGING_HOOK.format(log=log))
    git(store, "config", "core.fsmonitor", f"echo fsmonitor >> {log}")
    done = run_workbench("-p", "hi", cwd=folder)
    assert done.returncode == 1 and done.stdout == ""
    assert f"{store} was not made by workbench (hooks reference-transaction; " in done.stderr
    assert f"mv {store} {store}.foreign" in done.stderr
    assert hook_log(log) == [] and not (store / STORE_MARKER).exists()
    assert git(store, "for-each-ref") == "", "nothing was written to it"


def test_a_store_an_earlier_workbench_made_is_adopted_once(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    with Session.create(folder) as session:
        run(session.store.append("user", user("from before the marker")))
    store = ensure_storage(folder).git_dir
    (store / STORE_MARKER).unlink()  # as a store made before the marker existed
    done = run_workbench("-p", "-c", "hi", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert (store / STORE_MARKER).is_file()


def test_our_plumbing_runs_no_hook_but_commit_and_merge_run_the_users(project: Path) -> None:
    log = project.parent / "hooks.log"
    for name in ("reference-transaction", "post-checkout", "pre-commit", "post-merge"):
        install_hook(project / ".git", name, LOGGING_HOOK.format(log=log))
    with Session.create(project) as session:
        run(session.store.append("user", user("try it")))
        run(session.store.append("assistant", assistant("on it")))
        workspace = run(session.fork("exp")).worktree
        run(session.store.append("assistant", assistant("done")))
        assert hook_log(log) == [], "appends, forks and worktrees are our plumbing"
        (Path(workspace) / "new.txt").write_text("new\n")
        run(session.commit("add new.txt"))
        assert [line.split()[0] for line in hook_log(log)][:1] == ["pre-commit"]
        log.unlink()
        run(session.merge("exp"))
    ran = {line.split()[0] for line in hook_log(log)}
    assert "reference-transaction" in ran, "the user's branch moved as git merge moves it"


def test_a_commit_leaves_the_staging_clean_and_a_kill_leaves_it_untouched(project: Path) -> None:
    (project / "partly.txt").write_text("one\n")
    git(project, "add", "partly.txt")
    git(project, "commit", "--quiet", "-m", "partly")
    (project / "partly.txt").write_text("one\ntwo\n")
    git(project, "add", "partly.txt")  # staged: two lines
    (project / "partly.txt").write_text("one\ntwo\nthree\n")  # worktree: three
    (project / "untracked.txt").write_text("mine\n")
    before = git(project, "status", "--porcelain")
    marker = project.parent / "in-pre-commit"
    install_hook(project / ".git", "pre-commit", f'#!/bin/sh\ntouch "{marker}"\nsleep 30\n')
    with Session.create(project) as session:
        run(session.store.append("user", user("commit it all")))
        session_id = session.id
    committer = spawn_python(
        "import asyncio, sys\nfrom pathlib import Path\n"
        "from workbench.sessions.session import Session\n"
        "s = Session.open(Path(sys.argv[1]), sys.argv[2])\n"
        "asyncio.run(s.commit('all of it'))\n",
        str(project),
        session_id,
    )
    deadline = time.monotonic() + 30
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert marker.exists(), (
        committer.communicate(timeout=5) if committer.poll() is not None else "still running"
    )
    os.kill(committer.pid, signal.SIGKILL)
    committer.wait()
    assert git(project, "status", "--porcelain") == before, "the user's staging is as it was"
    (project / ".git" / "hooks" / "pre-commit").unlink()

    with Session.open(project, session_id) as session:
        run(session.commit("all of it"))
    assert git(project, "status", "--porcelain") == "", "no staged reversions left behind"
    assert git(project, "show", "HEAD:partly.txt") == "one\ntwo\nthree"


def test_a_label_is_bounded_with_a_clear_error(session: Session) -> None:
    run(session.store.append("user", user("hello")))
    with pytest.raises(UsageError, match="one non-empty line of at most 200 characters"):
        run(session.label("x" * 5000))
    assert run(session.label("y" * 200)).payload["label"] == "y" * 200


def test_a_setting_we_give_git_keeps_those_the_environment_gives_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fork's checkout and a diff give git a setting through `GIT_CONFIG_COUNT`; one that the
    user's environment injects the same way (`safe.directory`, a filter) still applies."""
    git(tmp_path, "init", "-q")
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "user.name")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "Injected By The Environment")
    runner = GitRunner(tmp_path).with_config("checkout.workers", "0")
    assert runner.run("config", "user.name") == "Injected By The Environment"
    assert runner.run("config", "checkout.workers") == "0"
