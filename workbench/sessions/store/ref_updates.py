"""Moving the conversation's refs through one `git update-ref --stdin` kept open per store.

Every append moves a branch ref, compare-and-swap (`update REF NEW OLD`); a `git update-ref`
process for each costs a few milliseconds, a transaction sent to a running one a fraction of a
millisecond. git does the moving (loose or packed refs, reftable, locks) exactly as a process
of its own would; `commit: ok` comes once the ref is written. A refused update ends that process
with git's message, which becomes the error a single `git update-ref` would have given; the next
update starts a new process (as it does when the process ended while idle).
"""

from __future__ import annotations

import contextlib
import subprocess
import threading
from collections.abc import Sequence
from typing import IO

from workbench.sessions.store.gitcmd import ZERO_OID, GitResult, GitRunner


class RefUpdates:
    """Compare-and-swap ref moves in one store, through a git process started at the first."""

    def __init__(self, git: GitRunner, message: str) -> None:
        self._git = git
        self._message = message
        """The reflog message of every move (`update-ref -m`)."""
        self._process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    def move_all(self, moves: Sequence[tuple[str, str, str | None]]) -> None:
        """Point each `ref` at `new` if it holds `old` (None: it must not exist yet), all in one
        transaction: every ref moves or none does."""
        with self._lock:
            self._move_all(moves)

    def _move_all(self, moves: Sequence[tuple[str, str, str | None]]) -> None:
        if self._process is not None and self._process.poll() is not None:
            self._end()  # ended while idle (killed): a new one takes over
        process = self._process or self._start()
        stdin, stdout = _pipes(process)
        answers: list[bytes] = []
        try:
            updates = "".join(f"update {ref} {new} {old or ZERO_OID}\n" for ref, new, old in moves)
            stdin.write(f"start\n{updates}commit\n".encode())
            stdin.flush()
            answers = [stdout.readline(), stdout.readline()]
        except OSError:
            pass
        if answers == [b"start: ok\n", b"commit: ok\n"]:
            return
        with contextlib.suppress(OSError):  # what it did not read cannot be flushed
            stdin.close()
        error = process.stderr.read().decode(errors="replace") if process.stderr else ""
        status = self._end()
        self._git.check(("update-ref",), GitResult(status or 1, "", error.removesuffix("\n")))

    def prepare(self) -> None:
        """Start the git process now, beside other work, so that the first move does not wait
        for it to start (a few milliseconds: a fork's reads run meanwhile)."""
        with self._lock:
            if self._process is None:
                self._start()

    def _start(self) -> subprocess.Popen[bytes]:
        self._process = self._git.start("update-ref", "-m", self._message, "--stdin")
        return self._process

    def close(self) -> None:
        """End the git process, if one was started."""
        with self._lock:
            self._end()

    def _end(self) -> int:
        """Close the process's stdin (it then exits), wait for it, close its pipes; its exit
        status (0 when none was started)."""
        process, self._process = self._process, None
        if process is None:
            return 0
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        return process.wait()


def _pipes(process: subprocess.Popen[bytes]) -> tuple[IO[bytes], IO[bytes]]:
    assert process.stdin is not None and process.stdout is not None  # started with both
    return process.stdin, process.stdout
