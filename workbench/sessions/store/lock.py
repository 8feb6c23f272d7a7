"""One writer per session: an advisory `flock` on a lock file that names its holder.

The kernel drops a `flock` when its process dies, however it dies, so a crashed writer can never
leave a session locked forever. The file keeps the holder's pid, command and time so a second
process can say who holds the session; a file still naming a holder whose lock is gone means that
holder died, and the new owner says so. Lock files are never deleted (deleting one while it is
held would let two processes lock two different files).
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from workbench.errors import DiskFull, WorkbenchError

SECRET_FLAGS = ("--api-key",)
"""Flags whose value is a secret: hidden in the command line a lock file records."""
HIDDEN = "***"


@dataclass(frozen=True)
class LockHolder:
    """The process that holds (or held) a session."""

    pid: int
    command: str
    since: float
    host: str

    def describe(self) -> str:
        """Who holds it; a key on the command line (a lock file from before redaction) is
        hidden here too."""
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.since))
        where = "" if self.host == _host() else f" on {self.host}"
        command = " ".join(redacted_argv(self.command.split(" ")))
        return f"pid {self.pid}{where} ({command}), open since {when}"

    @classmethod
    def current(cls) -> LockHolder:
        """This process, with any key on its command line hidden."""
        argv = [Path(sys.argv[0]).name, *sys.argv[1:]] if sys.argv else ["python"]
        command = " ".join(redacted_argv(argv))
        return cls(os.getpid(), command[:200], time.time(), _host())


def _host() -> str:
    """This machine's name, as `socket.gethostname()` gives it (without importing socket)."""
    return os.uname().nodename


def redacted_argv(argv: list[str]) -> list[str]:
    """`argv` with the value of every secret flag replaced (`--api-key X`, `--api-key=X`)."""
    shown: list[str] = []
    hide_next = False
    for arg in argv:
        if hide_next:
            shown.append(HIDDEN)
            hide_next = False
        elif arg in SECRET_FLAGS:
            shown.append(arg)
            hide_next = True
        elif arg.startswith(tuple(f"{flag}=" for flag in SECRET_FLAGS)):
            shown.append(f"{arg.partition('=')[0]}={HIDDEN}")
        else:
            shown.append(arg)
    return shown


def _read_holder(fd: int) -> LockHolder | None:
    os.lseek(fd, 0, os.SEEK_SET)
    data = os.read(fd, 65536)
    try:
        return LockHolder(**json.loads(data)) if data.strip() else None
    except (ValueError, TypeError):
        return None


class SessionLock:
    """The held lock of one session; `release()` (or process death) frees it."""

    def __init__(self, fd: int, path: Path, notice: str | None) -> None:
        self._fd: int | None = fd
        self.path = path
        self.notice = notice
        """Set when the lock was taken over from a process that died holding it."""

    @classmethod
    def acquire(cls, path: Path, session_id: str) -> SessionLock:
        """Lock the session or fail with an error naming the process that has it; a disk too
        full to hold the lock file (or the holder it names) is a `DiskFull`, as it is for
        every other write of a session."""
        try:
            return cls._acquire(path, session_id)
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                raise DiskFull(str(path.parent)) from exc
            raise

    @classmethod
    def _acquire(cls, path: Path, session_id: str) -> SessionLock:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        os.fchmod(fd, 0o600)  # one made before locks were private, too
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            os.close(fd)
            who = holder.describe() if holder else "another process"
            raise WorkbenchError(
                f"session {session_id} is open in another process: {who}",
                "close it there first, or start a new session; "
                "read-only commands (tree, status, sessions) work meanwhile",
            ) from None
        try:
            previous = _read_holder(fd)
            notice = None
            if previous is not None and previous.pid != os.getpid():
                notice = (
                    f"took over session {session_id} from {previous.describe()}, "
                    "which stopped without closing it"
                )
            me = json.dumps(asdict(LockHolder.current())).encode()
            os.ftruncate(fd, 0)
            os.pwrite(fd, me, 0)
        except OSError:
            os.close(fd)  # the lock goes with it
            raise
        return cls(fd, path, notice)

    def release(self) -> None:
        """Clear the holder record, then unlock; safe to call twice."""
        if self._fd is None:
            return
        os.ftruncate(self._fd, 0)
        os.close(self._fd)
        self._fd = None
