"""A remote given as a path is read from where the user typed it, as every path on a command line
is: `workbench push ../r.git` from the project, from a folder inside it, a `file://` URL with `..`
in it; and a remote configured with a relative URL is where `git push` finds it. A real bare
remote and `workbench` as real processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support.session_entries import assistant, git, run, user
from support.team_remote import Person, make_team, remote_refs

from workbench.sessions.session import Session


def start_session(person: Person) -> str:
    with Session.create(person.clone) as session:
        run(session.store.append("user", user("where does it go?")))
        run(session.store.append("assistant", assistant("to the remote")))
        return session.id


def cli_in(folder: Path, person: Person, *args: str) -> subprocess.CompletedProcess[str]:
    """`workbench ARGS` run by `person` with `folder` as the working directory."""
    return subprocess.run(
        [sys.executable, "-m", "workbench", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        env=person.env(),
        timeout=120,
    )


def test_a_remote_path_is_read_from_the_working_directory(tmp_path: Path) -> None:
    remote, alice, bob = make_team(tmp_path)
    sid = start_session(alice)
    pushed = cli_in(alice.clone, alice, "push", "../remote.git")
    assert pushed.returncode == 0, pushed.stderr
    assert f"refs/workbench/{sid}/branches/main" in remote_refs(remote)

    inside = bob.clone / "docs"
    inside.mkdir()
    pulled = cli_in(inside, bob, "pull", "../../remote.git", "--format", "json")
    assert pulled.returncode == 0, pulled.stderr
    assert json.loads(pulled.stdout)["sessions"] == {sid: ["main: new"]}


def test_a_remote_configured_with_a_relative_url_is_where_git_finds_it(tmp_path: Path) -> None:
    remote, alice, _ = make_team(tmp_path)
    git(alice.clone, "remote", "set-url", "origin", "../remote.git")
    sid = start_session(alice)
    pushed = alice.cli("push")
    assert pushed.returncode == 0, pushed.stderr
    assert f"session {sid} -> origin" in pushed.stdout
    assert f"refs/workbench/{sid}/branches/main" in remote_refs(remote)


def test_a_file_url_with_dot_dot_in_it_is_a_remote_like_any_other(tmp_path: Path) -> None:
    remote, alice, bob = make_team(tmp_path)
    sid = start_session(alice)
    url = f"file://{alice.clone}/../remote.git"
    pushed = alice.cli("push", url)
    assert pushed.returncode == 0, pushed.stderr
    assert f"refs/workbench/{sid}/branches/main" in remote_refs(remote)
    pulled = bob.cli("pull", url)
    assert pulled.returncode == 0 and "main: new" in pulled.stdout, pulled.stderr
