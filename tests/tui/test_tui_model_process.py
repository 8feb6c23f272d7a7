"""The app's litellm calls are made by a fork of it (`modes.app_start`), as a person runs
`workbench` in a terminal: the answer comes through it, it ends with the app, and when it is
killed the app makes the calls itself."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from support.openai_server import OpenAIServer, Reply
from support.processes import running_children
from support.terminal import exit_status, read_until, start_app, stop_app

SESSION_OPEN = "⎇ main".encode()
"""The footer's branch: the session is open."""
IDLE = b"essage the agent"
"""The editor's placeholder when nothing runs (while the agent works it says how to steer; the
cursor cell splits off the "M")."""


def forks(pid: int) -> list[int]:
    """The live forks of process `pid`: its children running its command line (not the gits
    and tools it starts)."""
    command = Path(f"/proc/{pid}/cmdline").read_bytes()
    return [child for child in running_children(pid) if _command_line(child) == command]


def _command_line(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:  # ended meanwhile
        return b""


def ended(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state == "Z"  # gone, but for its exit status


def wait_until(condition, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def ask(fd: int, question: str, answer: str) -> None:
    """Send `question`; wait for `answer`, then for the run to end (a Ctrl+C before that would
    stop the run, not quit)."""
    os.write(fd, question.encode() + b"\r")
    seen = read_until(fd, answer.encode(), 60)
    if IDLE not in seen[seen.index(answer.encode()) :]:
        read_until(fd, IDLE, 60)


def quit_app(pid: int, fd: int) -> int:
    """Ctrl+C twice on the empty editor; the app's exit code."""
    os.write(fd, b"\x03")
    time.sleep(0.2)
    os.write(fd, b"\x03")
    return os.waitstatus_to_exitcode(exit_status(pid, fd, 30))


def test_the_answer_comes_through_the_apps_call_process_which_ends_with_the_app(
    project: Path,
) -> None:
    with OpenAIServer() as server:
        server.add(Reply(text="forty-two, from the server"))
        model = ("--model", "openai/local", "--api-base", server.url, "--api-key", "none")
        pid, fd = start_app(project, *model)
        try:
            read_until(fd, SESSION_OPEN, 60)
            [fork] = forks(pid)
            ask(fd, "what is it?", "forty-two, from the server")
            assert len(server.requests) == 1
            code = quit_app(pid, fd)
            pid = 0
            assert code == 0
            wait_until(lambda: ended(fork), "the call process to end with the app")
        finally:
            stop_app(pid, fd)


def test_a_killed_call_process_leaves_the_app_making_its_calls_itself(project: Path) -> None:
    with OpenAIServer() as server:
        server.add(Reply(text="the first answer"), Reply(text="the second answer"))
        model = ("--model", "openai/local", "--api-base", server.url, "--api-key", "none")
        pid, fd = start_app(project, *model)
        try:
            read_until(fd, SESSION_OPEN, 60)
            ask(fd, "first?", "the first answer")
            [fork] = forks(pid)
            os.kill(fork, signal.SIGKILL)
            wait_until(lambda: ended(fork), "the call process to die")
            ask(fd, "second?", "the second answer")
            assert not Path(f"/proc/{fork}").exists(), "the app collected its exit status"
            assert forks(pid) == [], "and started no other"
            assert len(server.requests) == 2
            code = quit_app(pid, fd)
            pid = 0
            assert code == 0
        finally:
            stop_app(pid, fd)
