"""Run workbench as a real process: one-shot (`run_workbench`) or driven over `--mode rpc`."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 60.0
"""A limit against a hang, never a measure of speed: on a loaded 2-core machine a process that
imports litellm takes 15 s or more before its first event."""


def write_script(folder: Path, turns: list[dict[str, Any]] | dict[str, Any]) -> str:
    """A `scripted:` model string for these turns."""
    path = folder / "script.json"
    path.write_text(json.dumps(turns), encoding="utf-8")
    return f"scripted:{path}"


def write_settings(folder: Path, settings: dict[str, Any]) -> None:
    """The project's own settings: most keys apply only once the project is trusted."""
    (folder / ".pi").mkdir(exist_ok=True)
    (folder / ".pi" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")


def write_user_settings(settings: dict[str, Any]) -> None:
    """The user's settings (`~/.pi/agent/settings.json`, per test): connection, retries, costs."""
    from workbench.config import agent_dir

    agent_dir().mkdir(parents=True, exist_ok=True)
    (agent_dir() / "settings.json").write_text(json.dumps(settings), encoding="utf-8")


def workbench_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "workbench", *args]


def run_workbench(
    *args: str, cwd: Path, stdin: str | None = None, timeout: float = TIMEOUT
) -> subprocess.CompletedProcess[str]:
    """Run `workbench ARGS` as a real process and wait for it."""
    return subprocess.run(
        workbench_command(*args),
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=os.environ.copy(),
    )


class RpcProcess:
    """`workbench --mode rpc` driven as a user's script would: JSON lines in, events out."""

    def __init__(self, *args: str, cwd: Path) -> None:
        self.process = subprocess.Popen(
            workbench_command("--mode", "rpc", *args),
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=os.environ.copy(),
        )
        self.events: list[dict[str, Any]] = []
        self._incoming: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.header = self.next_event()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._incoming.put(json.loads(line))
        self._incoming.put(None)

    def send(self, **command: Any) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()

    def send_raw(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def next_event(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        event = self._incoming.get(timeout=timeout)
        if event is None:
            stderr = self.process.stderr.read() if self.process.stderr else ""
            raise AssertionError(f"workbench exited; stderr:\n{stderr}")
        self.events.append(event)
        return event

    def wait_for(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = TIMEOUT
    ) -> dict[str, Any]:
        """The next event matching `predicate` (earlier ones stay in `events`)."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                seen = [e["type"] for e in self.events[-30:]]
                raise AssertionError(f"no matching event within {timeout} s; last: {seen}")
            try:
                event = self.next_event(remaining)
            except queue.Empty:
                continue
            if predicate(event):
                return event

    def wait_type(self, type_: str, **fields: Any) -> dict[str, Any]:
        return self.wait_for(
            lambda e: e["type"] == type_ and all(e.get(k) == v for k, v in fields.items())
        )

    def close(self, timeout: float = TIMEOUT) -> int:
        if self.process.stdin and not self.process.stdin.closed:
            self.process.stdin.close()
        try:
            return self.process.wait(timeout=timeout)
        finally:
            if self.process.poll() is None:
                self.process.kill()
            for stream in (self.process.stdout, self.process.stderr):
                if stream:
                    stream.close()
