"""Helpers for the conversation-tree tests: real git repositories and real processes."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

from workbench.messages import Message, ToolCall, Usage

T = TypeVar("T")
REPO_ROOT = Path(__file__).resolve().parents[3]


def git(cwd: Path, *args: str, check: bool = True) -> str:
    """Run git in `cwd` and return its stripped output."""
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {done.stderr}")
    return done.stdout.rstrip()


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


def user(text: str) -> dict[str, Any]:
    return Message(role="user", text=text).to_dict()


def assistant(text: str, input_tokens: int = 0, output_tokens: int = 0) -> dict[str, Any]:
    usage = Usage(input_tokens=input_tokens, output_tokens=output_tokens)
    return Message(role="assistant", text=text, usage=usage).to_dict()


def tool_call(name: str, **arguments: Any) -> dict[str, Any]:
    call = ToolCall(id=f"call-{name}", name=name, arguments=arguments)
    return Message(role="assistant", tool_calls=[call]).to_dict()


def tool_result(name: str, text: str, **details: Any) -> dict[str, Any]:
    """A tool result; `details` as the enforcer records loads (`skill_load=`, `skill_loads=`)."""
    message = Message(
        role="tool_result", text=text, tool_call_id=f"call-{name}", tool_name=name, details=details
    )
    return message.to_dict()


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


def cli(cwd: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """`workbench ARGS` as a real process in `cwd`."""
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    return subprocess.run(
        [sys.executable, "-m", "workbench", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


def spawn_python(script: str, *args: str) -> subprocess.Popen[str]:
    """A real child process running `script` (Python source) with `args`."""
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
