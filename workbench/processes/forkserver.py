"""A warm interpreter: a background process that has done the heavy imports once and forks one
child per run, so a run starts in milliseconds instead of paying seconds of imports again.

Generic on purpose: the server is started with a warm-up function (`module:function`: what to
import and exercise before serving) and each request names its entry point (`module:function`,
called with the request's argv, returning an exit code). Headless runs with a litellm model use it
through `run_warm`; the sub-agent tool forks its children directly with `spawn` (each child leads
its own process group, so an abort can signal everything the child started).

The client passes its stdin, stdout and stderr over the Unix socket (SCM_RIGHTS), plus argv, cwd
and environment; the child takes them over, so output goes straight to the caller. The client
forwards SIGINT, SIGTERM and SIGHUP to the child and returns the child's exit code; if the client
dies, the child notices the closed socket and aborts like on SIGTERM.

One server per user, interpreter, code version and agent folder (all part of the socket's name,
so editing the code or changing `LITELLM_*` variables starts a fresh one); it exits after
`IDLE_SECONDS` without requests. `WORKBENCH_WARM_START=0` turns the whole mechanism off.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib
import importlib.util
import io
import json
import os
import signal
import site
import socket
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.config import agent_dir

IDLE_SECONDS = 600.0
START_TIMEOUT_S = 60.0
"""How long a client waits for a new server to finish its imports (slow, busy machines)."""
CHILD_MARKER = "WORKBENCH_WARM_CHILD"
WARM_UP = "workbench.cli:warm_up"
"""The warm-up of the one server that headless runs and sub-agent children share (litellm and
the headless modes imported)."""
CLI_ENTRY = "workbench.cli:main"
"""A run of the `workbench` command line in a warm child."""


def enabled(env: Mapping[str, str]) -> bool:
    """Off with `WORKBENCH_WARM_START=0`, and always off inside a warm child."""
    off = env.get("WORKBENCH_WARM_START", "1").lower() in ("0", "false", "no", "off")
    return not off and CHILD_MARKER not in env


WARM_PACKAGES = ("litellm",)
"""Installed packages whose version a warm server depends on (their install time is hashed)."""
LITELLM_ENV_DEFAULTS = {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_MODE": "PRODUCTION"}
"""What `models.litellm_client` sets before importing litellm unless the user did: a variable at its
default selects the same server as an unset one (a run that has imported litellm has them set)."""


def _fingerprint(warm_up: str, env: Mapping[str, str]) -> str:
    """What a server's imports depend on: interpreter, our code, the heavy packages, their
    `LITELLM_*` settings, and the agent folder (so that isolated test homes never share)."""
    package = Path(__file__).resolve().parents[1]
    parts = [sys.prefix, sys.version, warm_up, str(agent_dir())]
    for path in sorted(package.rglob("*.py")):
        stat = path.stat()
        parts.append(f"{path}:{stat.st_mtime_ns}:{stat.st_size}")
    for name in WARM_PACKAGES:
        found = importlib.util.find_spec(name)
        if found is not None and found.origin:
            parts.append(f"{found.origin}:{Path(found.origin).stat().st_mtime_ns}")
    parts += sorted(
        f"{k}={v}"
        for k, v in env.items()
        if k.startswith("LITELLM_") and LITELLM_ENV_DEFAULTS.get(k) != v
    )
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:20]


def socket_path(warm_up: str, env: Mapping[str, str]) -> Path:
    """Short (Unix socket paths are limited to ~100 bytes) and private to the user."""
    folder = Path(tempfile.gettempdir()) / f"workbench-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    info = folder.stat()
    if info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise PermissionError(f"{folder} is not private to this user")
    return folder / f"{_fingerprint(warm_up, env)}.sock"


# -- client ----------------------------------------------------------------------------------


def _connect(path: Path) -> socket.socket | None:
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        client.connect(str(path))
    except OSError:
        client.close()
        return None
    return client


def _start_server(path: Path, warm_up: str) -> socket.socket | None:
    """Start a server (one at a time, under a lock) and wait until it accepts connections."""
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        client = _connect(path)
        if client is not None:
            return client
        with open(path.with_suffix(".log"), "ab") as log:
            server = subprocess.Popen(  # never on a project's import path, nor in its folder
                [sys.executable, "-P", "-m", __name__, str(path), warm_up],
                cwd=path.parent,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,
            )
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline and server.poll() is None:
            client = _connect(path)
            if client is not None:
                return client
            time.sleep(0.02)
        return None


def _lines(connection: socket.socket, buffer: bytes = b"") -> Any:
    """Yield the JSON lines the child sends (starting with what is already in `buffer`)."""
    while True:
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            yield json.loads(line)
        chunk = connection.recv(4096)
        if not chunk:
            return
        buffer += chunk


@dataclass
class WarmChild:
    """A forked run: its pid, the connection that reports its exit code, and what already arrived
    after the pid line (the exit line of a quick child may come in the same read)."""

    pid: int
    connection: socket.socket
    pending: bytes = b""


def spawn(
    entry: str,
    argv: Sequence[str],
    warm_up: str,
    *,
    cwd: Path,
    env: Mapping[str, str],
    stdio: Sequence[int],
    own_group: bool = False,
) -> WarmChild | None:
    """Fork `entry(argv)` in the warm server for `warm_up` (started if none runs) with `stdio` as
    its fds 0-2; None when no server could be reached. `own_group`: the child leads a new process
    group (pgid = pid) before it reports its pid, so the caller can signal everything it starts.
    Blocking (a new server takes seconds to warm up): async callers run it in a thread."""
    try:
        path = socket_path(warm_up, env)
        connection = _connect(path) or _start_server(path, warm_up)
    except OSError:
        return None
    if connection is None:
        return None
    request = {
        "entry": entry,
        "argv": list(argv),
        "cwd": str(cwd),
        "env": dict(env),
        "own_group": own_group,
    }
    try:
        socket.send_fds(connection, [json.dumps(request).encode() + b"\n"], list(stdio))
        buffer = b""
        while b"\n" not in buffer:
            chunk = connection.recv(4096)
            if not chunk:
                raise ConnectionError("the warm server closed the connection")
            buffer += chunk
        first, pending = buffer.split(b"\n", 1)
        return WarmChild(int(json.loads(first)["pid"]), connection, pending)
    except (OSError, ValueError, KeyError):
        connection.close()
        return None


def run_warm(entry: str, argv: Sequence[str], warm_up: str) -> int | None:
    """Run `entry(argv)` in a warm child with this process's stdio, cwd and environment; its exit
    code, or None when no warm server could be reached (the caller then runs in-process)."""
    child = spawn(entry, argv, warm_up, cwd=Path.cwd(), env=os.environ, stdio=(0, 1, 2))
    if child is None:
        return None

    def forward(signum: int, _frame: object) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(child.pid, signum)

    previous = {
        signum: signal.signal(signum, forward)
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    }
    try:
        with child.connection:
            for reply in _lines(child.connection, child.pending):
                if "exit" in reply:
                    return int(reply["exit"])
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    print("workbench: the warm process ended without an exit code", file=sys.stderr)
    return 1


def stop(warm_up: str, env: Mapping[str, str]) -> bool:
    """Ask the server for this environment to exit; whether one was running."""
    connection = _connect(socket_path(warm_up, env))
    if connection is None:
        return False
    with connection:
        connection.sendall(b'{"stop": true}\n')
        connection.recv(1)
    return True


# -- server ----------------------------------------------------------------------------------


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


def _child(connection: socket.socket, request: dict[str, Any], fds: list[int]) -> None:
    """Become the run: take over the client's stdio, folder and environment, run the entry."""
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

    def watch_client() -> None:
        with contextlib.suppress(OSError):
            connection.recv(1)
        os.kill(os.getpid(), signal.SIGTERM)  # the client is gone: abort like on SIGTERM

    threading.Thread(target=watch_client, daemon=True).start()
    code = 1
    try:
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


def _receive(connection: socket.socket) -> tuple[dict[str, Any], list[int]]:
    """One request: a JSON line, with the client's stdio descriptors on its first part."""
    data, fds, _, _ = socket.recv_fds(connection, 1 << 16, 3)
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


def serve(path: Path, warm_up: str, idle_seconds: float = IDLE_SECONDS) -> None:
    """Warm up, then fork a child per request until idle for `idle_seconds`. A server that
    finds foreign modules loaded refuses to serve: its clients start cold."""
    _call(warm_up)()
    if foreign := foreign_modules():
        print(f"warm server: not serving, foreign modules: {foreign}", file=sys.stderr, flush=True)
        return
    reaper = _Reaper()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    temporary = path.with_name(f"{path.stem}.{os.getpid()}.tmp")
    listener.bind(str(temporary))
    listener.listen(64)
    temporary.replace(path)  # clients see the socket only once it accepts
    ours = path.stat().st_ino
    listener.settimeout(idle_seconds)
    try:
        while True:
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
                if request.get("stop"):
                    return
                pid = os.fork()
                if pid == 0:
                    listener.close()
                    for other in list(reaper.clients.values()):
                        other.close()  # other runs' connections are theirs alone
                    _child(connection, request, fds)
                reaper.watch(pid, connection)
                for fd in fds:
                    os.close(fd)
    finally:
        with contextlib.suppress(FileNotFoundError):
            if path.stat().st_ino == ours:
                path.unlink()
                path.with_suffix(".lock").unlink()
                if path.with_suffix(".log").stat().st_size == 0:
                    path.with_suffix(".log").unlink()
        listener.close()


if __name__ == "__main__":
    serve(Path(sys.argv[1]), sys.argv[2])
