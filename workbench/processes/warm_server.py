"""The warm interpreter's server side (see `forkserver` for the client and the whole picture):
warm up once, then fork one child per request; each child takes over its client's stdio, folder
and environment and runs the request's entry point.

The next child is forked ahead, once the server is idle (`_Spare`): forking a process that holds
litellm costs 10-15 ms here (its page tables), and the child's first steps a few more, none of it
on a run's way any more. A request that finds no spare ready is forked at once, as before.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import importlib
import io
import json
import os
import select
import signal
import site
import socket
import sys
import sysconfig
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, NoReturn

from workbench.config import SETTINGS_FILE, agent_dir, read_json_file
from workbench.errors import WorkbenchError
from workbench.processes.forkserver import CHILD_MARKER, IDLE_SECONDS, connect


def _call(entry: str) -> Callable[..., Any]:
    module, _, name = entry.partition(":")
    function: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return function


def _reopen_stdio() -> None:
    """Fresh text streams on fds 0-2 (the ones inherited at start pointed at /dev/null)."""
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8")
    for fd, name in ((1, "stdout"), (2, "stderr")):
        stream = io.TextIOWrapper(
            io.FileIO(fd, "w", closefd=False),
            encoding="utf-8",
            errors="backslashreplace" if fd == 2 else "strict",
            line_buffering=os.isatty(fd) or fd == 2,
        )
        setattr(sys, name, stream)


def _child(connection: socket.socket, request: dict[str, Any], fds: list[int]) -> NoReturn:
    """Become the run: take over the client's stdio, folder and environment, run the entry.
    Never returns, also when the set-up fails (a client gone already): back in the server's
    code, the child would remove the server's socket on its way out."""

    def watch_client() -> None:
        with contextlib.suppress(OSError):
            connection.recv(1)
        os.kill(os.getpid(), signal.SIGTERM)  # the client is gone: abort like on SIGTERM

    code = 1
    try:
        if request.get("own_group"):
            os.setpgid(0, 0)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        for target, fd in zip((0, 1, 2), fds, strict=True):
            os.dup2(fd, target)
            os.close(fd)
        _reopen_stdio()
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        os.environ[CHILD_MARKER] = "1"
        sys.argv = ["workbench", *request["argv"]]  # the run's command line, not the server's
        connection.sendall(json.dumps({"pid": os.getpid()}).encode() + b"\n")
        threading.Thread(target=watch_client, daemon=True).start()
        code = int(_call(request["entry"])(request["argv"]) or 0)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        with contextlib.suppress(OSError):
            connection.sendall(json.dumps({"exit": code}).encode() + b"\n")
        os._exit(code)


SPARE_AFTER_S = 0.3
"""How long the server waits without a request before forking the next spare (and then until
no run is left): a run gets the machine's cores to itself, the spare's preparations too."""
_spare_preparations: list[Callable[[], object]] = []


def prepare_spares(preparation: Callable[[], object]) -> None:
    """Have each spare run `preparation` once forked, before it waits for its request: for what
    a run's first steps would pay in every child (a warm-up function registers it)."""
    _spare_preparations.append(preparation)


class _Spare:
    """A child forked ahead of its request: once prepared, it says so (`READY`) and waits on its
    end of a socket pair for the client's connection, the client's stdio and the request, then
    runs like any child. It leaves when the server closes the pair (the server exits), and never
    holds another run's files."""

    READY = b"r"

    def __init__(self, listener: socket.socket, reaper: _Reaper) -> None:
        self.hand, their_hand = socket.socketpair()
        self.pid = os.fork()
        if self.pid == 0:
            try:
                self.hand.close()
                _leave_the_server(listener, reaper)
                for preparation in _spare_preparations:
                    try:
                        preparation()
                    except Exception:  # only a head start: the run does it again if it must
                        traceback.print_exc()
                their_hand.sendall(self.READY)
                _wait_for_request(their_hand)
            finally:
                os._exit(1)  # never back in the server's code (see `_child`)
        their_hand.close()
        self.state: Literal["preparing", "ready", "gone"] = "preparing"

    def ready(self) -> bool:
        """Whether it is prepared (a request handed to it sooner would wait for that); `state`
        is "gone" once it is found to have exited."""
        if self.state == "preparing" and select.select([self.hand], [], [], 0)[0]:
            try:
                said = self.hand.recv(1)
            except OSError:
                said = b""
            self.state = "ready" if said == self.READY else "gone"
        return self.state == "ready"

    def take(self, connection: socket.socket, request: dict[str, Any], fds: list[int]) -> bool:
        """Hand the request over; False when the spare is gone (the server forks one itself)."""
        self.state = "gone"  # taken, or found gone: either way not a spare any more
        try:
            data = json.dumps(request).encode() + b"\n"
            socket.send_fds(self.hand, [data], [connection.fileno(), *fds])
        except OSError:
            return False
        finally:
            self.hand.close()
        return True

    def leave(self) -> None:
        self.hand.close()  # the spare reads the end of the pair and exits


def _leave_the_server(listener: socket.socket, reaper: _Reaper) -> None:
    """In a new child: let go of what is the server's (its listening socket) and other runs'
    (their connections, which the reaper keeps)."""
    listener.close()
    for other in list(reaper.clients.values()):
        other.close()


def _wait_for_request(hand: socket.socket) -> NoReturn:
    """A spare's life: wait for the server to hand a request over, then become its run."""
    try:
        data, fds, _, _ = socket.recv_fds(hand, 1 << 16, 4)
        while data and not data.endswith(b"\n"):
            more = hand.recv(1 << 16)
            if not more:
                break
            data += more
        request = json.loads(data) if data.endswith(b"\n") and len(fds) == 4 else None
    except (OSError, ValueError):
        request = None
    if request is None:  # the server left (or broke off): nothing to run
        os._exit(0)
    hand.close()
    os.set_inheritable(fds[0], False)  # the client's connection: the run's alone, not its tools'
    _child(socket.socket(fileno=fds[0]), request, fds[1:])


def _receive(connection: socket.socket) -> tuple[dict[str, Any] | None, list[int]]:
    """One request: a JSON line, with the client's stdio descriptors on its first part; None
    for a connection closed without one (a check whether a server runs)."""
    data, fds, _, _ = socket.recv_fds(connection, 1 << 16, 3)
    if not data:
        return None, fds
    while data and not data.endswith(b"\n"):
        more = connection.recv(1 << 16)
        if not more:
            break
        data += more
    return json.loads(data), fds


def foreign_modules() -> list[str]:
    """Loaded modules whose file lies outside Python's own folders, its site-packages, the
    user's absolute `PYTHONPATH` entries and our package: code a project slipped in, which a
    server for every project must not carry."""
    paths = sysconfig.get_paths()
    roots = [paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")]
    roots += [*site.getsitepackages(), str(Path(__file__).parents[1])]
    roots += [
        p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if Path(p).is_absolute()
    ]
    ours = tuple({str(Path(root).resolve()) + os.sep for root in roots})
    return sorted(
        f"{name} ({file})"
        for name, module in list(sys.modules.items())
        if (file := getattr(module, "__file__", None))
        and not str(Path(file).resolve()).startswith(ours)
    )


class _Reaper:
    """Reaps the server's children. A child a signal killed could not send its exit code: the
    reaper sends the client 128 + the signal, as a shell reports it."""

    def __init__(self) -> None:
        self.clients: dict[int, socket.socket] = {}
        self._ended: dict[int, int] = {}
        self._lock = threading.Lock()
        threading.Thread(target=self._reap, daemon=True).start()

    def watch(self, pid: int, connection: socket.socket) -> None:
        with self._lock:
            status = self._ended.pop(pid, None)
            if status is None:
                self.clients[pid] = connection.dup()
                return
        self._tell(connection.dup(), status)

    def _reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, 0)
            except ChildProcessError:
                time.sleep(0.05)
                continue
            with self._lock:
                client = self.clients.pop(pid, None)
                if client is None:
                    self._ended[pid] = status
                    continue
            self._tell(client, status)

    @staticmethod
    def _tell(client: socket.socket, status: int) -> None:
        with client, contextlib.suppress(OSError):
            if os.WIFSIGNALED(status):
                code = 128 + os.WTERMSIG(status)
                client.sendall(json.dumps({"exit": code}).encode() + b"\n")


def idle_seconds() -> float:
    """`warm_start.idle_seconds` from the user's settings (a positive number), else
    `IDLE_SECONDS`; a server for every project reads the user's settings only."""
    try:
        settings = read_json_file(agent_dir() / SETTINGS_FILE)
    except WorkbenchError:
        return IDLE_SECONDS
    section = settings.get("warm_start") if isinstance(settings, dict) else None
    value = section.get("idle_seconds") if isinstance(section, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return IDLE_SECONDS
    return float(value)


def serve(
    path: Path, warm_up: str, idle_seconds: float = IDLE_SECONDS, starter: int | None = None
) -> None:
    """Warm up, then fork a child per request until idle for `idle_seconds`. The lock is held
    while warming up (a server that finds another serving leaves at once). A server that finds
    foreign modules loaded refuses to serve: its clients start cold. What the warm-up function
    returns (a function, or None) is done once no request waits: what only some runs need.
    `starter`: the read end of a pipe whose write end the process that started this one holds
    (`forkserver.start_soon`): nothing is done until that process has exited."""
    if starter is not None:
        _wait_for_the_end(starter)
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        running = connect(path)
        if running is not None:
            running.close()
            return
        done = _call(warm_up)()
        later = done if callable(done) else None
        if foreign := foreign_modules():
            print(f"warm server: not serving, foreign modules: {foreign}", file=sys.stderr)
            return
        listener = _listen(path)
    _serve(path, listener, idle_seconds, later)


def _wait_for_the_end(pipe: int) -> None:
    """Return once nothing holds the write end of `pipe` any more (its holder has exited)."""
    with contextlib.suppress(OSError):
        while os.read(pipe, 1):
            pass
    os.close(pipe)


def _freeze() -> None:
    """What warming up made, out of the collector's sight: children share it untouched (no
    collection walks it, no copy-on-write from the collector's marks)."""
    gc.collect()
    gc.freeze()


def _listen(path: Path) -> socket.socket:
    _freeze()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    temporary = path.with_name(f"{path.stem}.{os.getpid()}.tmp")
    listener.bind(str(temporary))
    listener.listen(64)
    temporary.replace(path)  # clients see the socket only once it accepts
    return listener


def _serve(
    path: Path, listener: socket.socket, idle_seconds: float, later: Callable[[], object] | None
) -> None:
    reaper = _Reaper()
    ours = path.stat().st_ino
    listener.settimeout(idle_seconds)
    spare: _Spare | None = None
    wait = 0.0  # before the next spare: none right after warming up, SPARE_AFTER_S after a run
    last_request = time.monotonic()
    try:
        while True:
            if later is not None and not select.select([listener], [], [], 0.05)[0]:
                later()  # in this thread, between requests: never under a child's fork
                later = None
                _freeze()
                continue
            if spare is not None and spare.state == "gone":
                spare = None  # it exited (killed): another is forked once idle
            if later is None and spare is None and not select.select([listener], [], [], wait)[0]:
                if time.monotonic() - last_request > idle_seconds:
                    return  # as `accept` times out below: idle, if runs still go or not
                if reaper.clients:  # a run is still going: not beside it
                    wait = SPARE_AFTER_S
                    continue
                spare = _Spare(listener, reaper)  # forked with all the server has imported
                continue
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                return
            with connection:
                connection.settimeout(None)
                try:
                    request, fds = _receive(connection)
                except (OSError, ValueError) as exc:
                    print(f"warm server: bad request: {exc!r}", file=sys.stderr, flush=True)
                    continue
                if request is None:
                    continue
                if request.get("stop"):
                    return
                last_request = time.monotonic()
                if spare is not None and spare.ready() and spare.take(connection, request, fds):
                    pid, spare = spare.pid, None
                else:  # none, or still preparing (kept for the next run), or gone
                    pid = os.fork()
                    if pid == 0:
                        try:
                            _leave_the_server(listener, reaper)
                            _child(connection, request, fds)
                        finally:
                            os._exit(1)  # never back in the server's code (see `_child`)
                wait = SPARE_AFTER_S
                reaper.watch(pid, connection)
                for fd in fds:
                    os.close(fd)
    finally:
        if spare is not None:
            spare.leave()
        with contextlib.suppress(FileNotFoundError):
            if path.stat().st_ino == ours:
                path.unlink()
                path.with_suffix(".lock").unlink()
                if path.with_suffix(".log").stat().st_size == 0:
                    path.with_suffix(".log").unlink()
        listener.close()


if __name__ == "__main__":  # served by the module under its own name, whose state a warm-up
    from workbench.processes import warm_server  # reaches (`prepare_spares`), not `__main__`'s

    starter = int(sys.argv[3]) if len(sys.argv) > 3 else None
    warm_server.serve(Path(sys.argv[1]), sys.argv[2], warm_server.idle_seconds(), starter)
