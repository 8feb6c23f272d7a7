"""Two people and a remote for the sharing tests: a bare repository on disk and two clones, each
with its own git identity, and `workbench` run as a real process in either clone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from support.session_entries import REPO_ROOT, git


@dataclass
class Person:
    name: str
    email: str
    clone: Path

    def env(self) -> dict[str, str]:
        return dict(
            os.environ,
            PYTHONPATH=str(REPO_ROOT),
            GIT_AUTHOR_NAME=self.name,
            GIT_AUTHOR_EMAIL=self.email,
            GIT_COMMITTER_NAME=self.name,
            GIT_COMMITTER_EMAIL=self.email,
        )

    def cli(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        """`workbench ARGS` as a real process in this person's clone, as this person."""
        return subprocess.run(
            [sys.executable, "-m", "workbench", *args],
            cwd=self.clone,
            capture_output=True,
            text=True,
            env=self.env(),
            timeout=timeout,
        )

    def spawn(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "workbench", *args],
            cwd=self.clone,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=self.env(),
            start_new_session=True,
        )

    def say(self, session: str, text: str, replies: list[str] | None = None) -> None:
        """Continue `session` headless with a scripted model: one user entry, one reply."""
        script = self.clone.parent / f"script-{self.name.split()[0]}.json"
        script.write_text(json.dumps([{"text": r} for r in replies or [f"ok, {text}"]]))
        done = self.cli("-p", "--session", session, "--model", f"scripted:{script}", text)
        assert done.returncode == 0, done.stderr


def make_team(root: Path) -> tuple[Path, Person, Person]:
    """A bare remote with one commit on main, and Alice's and Bob's clones of it."""
    remote = root / "remote.git"
    git(root, "init", "--quiet", "--bare", "--initial-branch=main", str(remote))
    seed = root / "seed"
    git(root, "init", "--quiet", "--initial-branch=main", str(seed))
    (seed / "README.md").write_text("hello\n")
    git(seed, "add", "-A")
    git(seed, "-c", "user.name=Seed", "-c", "user.email=seed@example.com", "commit", "-qm", "init")
    git(seed, "push", "--quiet", str(remote), "main")
    people = []
    for name, email in (("Alice Smith", "alice@example.com"), ("Bob Jones", "bob@example.com")):
        clone = root / name.split()[0].lower()
        git(root, "clone", "--quiet", str(remote), str(clone))
        git(clone, "config", "user.name", name)
        git(clone, "config", "user.email", email)
        people.append(Person(name, email, clone))
    return remote, people[0], people[1]


def remote_refs(remote: Path) -> dict[str, str]:
    out = git(remote, "for-each-ref", "--format=%(refname) %(objectname)")
    return dict(tuple(line.split(" ")) for line in out.splitlines())  # type: ignore[misc]


def tree_json(person: Person, *args: str) -> dict:
    done = person.cli("tree", "--format", "json", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
