"""What the agent benchmarks share: a small project, a read-then-answer turn run as a whole
process against the local OpenAI-compatible server, and the times that server sees.

Any agent's command line fits (`command(url)` gives it for the server's API base), so workbench
and pi are timed by the same code against the same script.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from support.openai_server import OpenAIServer, Reply
from support.skill_trees import Spec

READ = {"name": "read", "arguments": {"path": "notes.txt"}}


def project(folder: Path) -> Path:
    """A project with a file to read and a `scripted:` model's script that reads it."""
    folder.mkdir()
    (folder / ".git").mkdir()
    (folder / "notes.txt").write_text("alpha\nbeta\n")
    (folder / "script.json").write_text(json.dumps([{"tool_calls": [READ]}, {"text": "done"}]))
    return folder


def unlayered_specs(skills: int) -> dict[str, Spec]:
    """`skills` skills of pi's kind (no layers), each with a 300-character description."""
    return {f"skill-{n:05d}": Spec(description="Word " * 60) for n in range(skills)}


def timed_run(command: list[str], cwd: Path, env: dict[str, str], answers: bool = True) -> float:
    """Seconds from spawning `command` to its exit; a failed run, or an empty answer from a
    command that `answers`, stops the benchmark."""
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0 or (answers and not done.stdout.strip()):
        raise SystemExit(f"run failed: {' '.join(command)}\n{done.stderr.decode()}")
    return elapsed


class TimedServer(OpenAIServer):
    """The local server, noting also when it finished sending each reply (`reply_ends`)."""

    def __init__(self, script: list[Any] | None = None) -> None:
        self.reply_ends: list[float] = []
        super().__init__(script)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        handler: Any = super()._handler_class()
        ends = self.reply_ends

        class Timed(handler):  # type: ignore[misc, valid-type]
            def _stream(self, reply: Reply, model: str) -> None:
                super()._stream(reply, model)
                ends.append(time.perf_counter())

        return Timed


@dataclass
class Turn:
    """One read-then-answer turn, in seconds: the whole process; spawn to the first request at
    the server; the end of the reply asking for the read to the request bringing its result.
    And the size of the system prompt the first request carried, in bytes."""

    total: float
    first_request: float
    tool_to_request: float
    system_bytes: int


def read_then_answer(
    server: TimedServer, command: list[str], cwd: Path, env: dict[str, str]
) -> Turn:
    """Run the turn once; `command` is the agent's command line, pointed at `server`."""
    before = len(server.requests)
    server.add(Reply(tool_calls=[READ]), Reply(text="alpha and beta"))
    started = time.perf_counter()
    total = timed_run(command, cwd, env)
    first, second = server.request_times[before : before + 2]
    system = server.requests[before]["messages"][0]
    content = system["content"] if system["role"] != "user" else ""
    size = len((content if isinstance(content, str) else json.dumps(content)).encode())
    return Turn(total, first - started, second - server.reply_ends[before], size)


if __name__ == "__main__":  # helpers, nothing to run; it answers --help as every script here does
    argparse.ArgumentParser(description=__doc__).parse_args()
