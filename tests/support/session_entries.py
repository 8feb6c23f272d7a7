"""Entries as the session tests store them (a question, a reply, a tool call, its result), and
`workbench` or Python run as real processes (git repositories: `git_project`)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

from support.git_project import fsck_problems, git, make_project, snapshot, store_dir
from workbench.messages import Message, ToolCall, Usage

__all__ = ["fsck_problems", "git", "make_project", "snapshot", "store_dir"]

T = TypeVar("T")
REPO_ROOT = Path(__file__).resolve().parents[2]


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
