"""Real git repositories for tests: a project with a commit, what its user sees, fsck."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git(cwd: Path, *args: str, check: bool = True) -> str:
    """Run git in `cwd` and return its stripped output."""
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {done.stderr}")
    return done.stdout.rstrip()


def store_dir(project: Path) -> Path:
    """The store repository that holds the conversations of the git project at `project`."""
    common = git(project, "rev-parse", "--path-format=absolute", "--git-common-dir")
    return Path(common) / "workbench" / "store.git"


def make_project(root: Path, files: dict[str, str] | None = None, identity: bool = True) -> Path:
    """A git repository with one commit of `files` (and a local identity unless told not to)."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "--quiet", "--initial-branch=main")
    if identity:
        git(root, "config", "user.name", "Test User")
        git(root, "config", "user.email", "test@example.com")
    for name, text in (files or {"README.md": "hello\n", "src/app.py": "print('v1')\n"}).items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(root, "add", "--all")
    ident = [] if identity else ["-c", "user.name=Setup", "-c", "user.email=setup@example.com"]
    git(root, *ident, "commit", "--quiet", "-m", "initial")
    return root


def snapshot(root: Path) -> dict[str, str]:
    """What the user sees of their repository: branches, HEAD, index, status, files."""
    files = {
        str(p.relative_to(root)): p.read_text()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }
    return {
        "branches": git(root, "branch", "--list", "--all"),
        "head": git(root, "rev-parse", "HEAD"),
        "index": git(root, "ls-files", "--stage"),
        "status": git(root, "status", "--porcelain=v1", "--untracked-files=all"),
        "files": repr(files),
    }


def fsck_problems(git_dir_or_root: Path) -> list[str]:
    """Lines of `git fsck --full --strict` that are not mere dangling-object notes."""
    done = subprocess.run(
        ["git", "fsck", "--full", "--strict", "--no-progress"],
        cwd=git_dir_or_root,
        capture_output=True,
        text=True,
    )
    lines = (done.stdout + done.stderr).splitlines()
    problems = [line for line in lines if not line.startswith(("dangling ", "notice:"))]
    if done.returncode != 0:
        problems.append(f"exit {done.returncode}")
    return problems
