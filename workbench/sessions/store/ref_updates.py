"""Moving the conversation's refs through one `git update-ref --stdin` kept open per store.

Every append moves a branch ref, compare-and-swap (`update REF NEW OLD`); a `git update-ref`
process for each costs a few milliseconds, a transaction sent to a running one a fraction of a
millisecond. git does the moving (loose or packed refs, reftable, locks) exactly as a process
of its own would; `commit: ok` comes once the ref is written. A refused update ends that process
with git's message, which becomes the error a single `git update-ref` would have given; the next
update starts a new process.
"""

from __future__ import annotations

import subprocess
import threading
from typing import IO

from workbench.sessions.store.gitcmd import GitResult, GitRunner


class RefUpdates:
    """Compare-and-swap ref moves in one store, through a git process started at the first."""

    def __init__(self, git: GitRunner, message: str) -> None:
        self._git = git
        self._message = message
        """The reflog message of every move (`update-ref -m`)."""
        self._process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    def move(self, ref: str, new: str, old: str) -> None:
        """Point `ref` at `new` if it holds `old` (all zeros: it must not exist yet)."""
        with self._lock:
            self._move(ref, new, old)

    def _move(self, ref: str, new: str, old: str) -> None:
        process = self._process or self._start()
        stdin, stdout = _pipes(process)
        answers: list[bytes] = []
        try:
            stdin.write(f"start\nupdate {ref} {new} {old}\ncommit\n".encode())
            stdin.flush()
            answers = [stdout.readline(), stdout.readline()]
        except OSError:
            pass
        if answers == [b"start: ok\n", b"commit: ok\n"]:
            return
        self._process = None
        stdin.close()
        error = process.stderr.read().decode(errors="replace") if process.stderr else ""
        status = _ended(process)
        self._git.check(("update-ref",), GitResult(status or 1, "", error.removesuffix("\n")))

    def _start(self) -> subprocess.Popen[bytes]:
        self._process = self._git.start("update-ref", "-m", self._message, "--stdin")
        return self._process

    def close(self) -> None:
        """End the git process, if one was started."""
        with self._lock:
            process, self._process = self._process, None
            if process is not None:
                _pipes(process)[0].close()
                _ended(process)


def _ended(process: subprocess.Popen[bytes]) -> int:
    """Wait for the process (its stdin closed) and close its pipes; its exit status."""
    status = process.wait()
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()
    return status


def _pipes(process: subprocess.Popen[bytes]) -> tuple[IO[bytes], IO[bytes]]:
    assert process.stdin is not None and process.stdout is not None  # started with both
    return process.stdin, process.stdout
