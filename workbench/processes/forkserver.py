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

This module is the client's side and what both sides share; the server's side is `warm_server`.
One server per user, interpreter, code version and agent folder (all part of the socket's name,
so editing the code or changing `LITELLM_*` variables starts a fresh one); it exits after the
user setting `warm_start.idle_seconds` (default `IDLE_SECONDS`) without requests. A server holds
its lock file while it warms up, so a command that starts one without waiting for it (`start_soon`)
never leaves a second one starting beside it. `WORKBENCH_WARM_START=0` turns the whole mechanism
off.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import json
import os
import signal
import socket
import sys
import time
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path

from workbench.paths import agent_dir

TYPE_CHECKING = False  # `typing`'s own, without importing it: a warm run's client needs none
if TYPE_CHECKING:
    import subprocess
    from typing import Any

IDLE_SECONDS = 600.0
"""How long a server waits for a request before it exits, unless `warm_start.idle_seconds` in
the user's settings says otherwise."""
START_TIMEOUT_S = 60.0
"""How long a client waits for a new server to finish its imports (slow, busy machines)."""
CHILD_MARKER = "WORKBENCH_WARM_CHILD"
SERVER_MODULE = "workbench.processes.warm_server"
"""The server's side (`python -m` runs it)."""
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


def _code_files(folder: str, parts: list[str]) -> None:
    """Each `.py` file under `folder` with its modification time and size, in a fixed order
    (`os.scandir`: a quarter of what `Path.rglob` took, on every warm run's way to its server)."""
    with os.scandir(folder) as found:
        entries = sorted(found, key=lambda entry: entry.name)
    for entry in entries:
        if entry.is_dir(follow_symlinks=False) and entry.name != "__pycache__":
            _code_files(entry.path, parts)
        elif entry.name.endswith(".py"):
            stat = entry.stat()
            parts.append(f"{entry.path}:{stat.st_mtime_ns}:{stat.st_size}")


def _fingerprint(warm_up: str, env: Mapping[str, str]) -> str:
    """What a server's imports depend on: interpreter, our code, the heavy packages, their
    `LITELLM_*` settings, and the agent folder (so that isolated test homes never share). Two
    checksums, not a cryptographic hash: the name only has to change with any of them, and
    `hashlib` (OpenSSL) would be the client's dearest import."""
    parts = [sys.prefix, sys.version, warm_up, str(agent_dir(env))]
    _code_files(str(Path(__file__).resolve().parents[1]), parts)
    for name in WARM_PACKAGES:
        found = importlib.util.find_spec(name)
        if found is not None and found.origin:
            parts.append(f"{found.origin}:{Path(found.origin).stat().st_mtime_ns}")
    parts += sorted(
        f"{k}={v}"
        for k, v in env.items()
        if k.startswith("LITELLM_") and LITELLM_ENV_DEFAULTS.get(k) != v
    )
    data = "\n".join(parts).encode()
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"


def _temp_dir() -> str:
    """`tempfile.gettempdir()`'s choice in the usual cases (the first of $TMPDIR, $TEMP, $TMP,
    /tmp, /var/tmp, /usr/tmp that is a folder this user can write in) without importing
    `tempfile` (and its `shutil` and `random`) on a warm run's way; tempfile decides otherwise."""
    candidates = [os.environ.get(name) for name in ("TMPDIR", "TEMP", "TMP")]
    for folder in [*candidates, "/tmp", "/var/tmp", "/usr/tmp"]:
        if folder and Path(folder).is_dir() and os.access(folder, os.W_OK | os.X_OK):
            return str(Path(folder).absolute())
    import tempfile

    return tempfile.gettempdir()


def socket_path(warm_up: str, env: Mapping[str, str]) -> Path:
    """Short (Unix socket paths are limited to ~100 bytes) and private to the user."""
    folder = Path(_temp_dir()) / f"workbench-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    info = folder.stat()
    if info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise PermissionError(f"{folder} is not private to this user")
    return folder / f"{_fingerprint(warm_up, env)}.sock"


# -- client ----------------------------------------------------------------------------------


def connect(path: Path) -> socket.socket | None:
    """A connection to the server listening on `path`, or None when none does."""
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        client.connect(str(path))
    except OSError:
        client.close()
        return None
    return client


_starters_ends: list[int] = []
"""Write ends of the pipes on whose read ends the servers this process started to warm up after
its exit wait (`start_soon`): never closed, so a server sees its pipe end only when this process
(and with it every copy of the end) is gone. They are not inherited by what this process starts."""


def _launch(path: Path, warm_up: str, after_exit: bool = False) -> subprocess.Popen[bytes]:
    """Start a server process; it takes the lock itself while it warms up (see `serve`).
    `after_exit`: it waits until this process has exited before it does anything else."""
    import subprocess

    command = [sys.executable, "-P", "-m", SERVER_MODULE, str(path), warm_up]
    waits: tuple[int, ...] = ()
    if after_exit:
        read_end, write_end = os.pipe()
        _starters_ends.append(write_end)
        command.append(str(read_end))
        waits = (read_end,)
    try:
        with open(path.with_suffix(".log"), "ab") as log:
            return subprocess.Popen(  # never on a project's import path, nor in its folder
                command,
                cwd=path.parent,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,
                pass_fds=waits,
            )
    finally:
        for fd in waits:
            os.close(fd)


def _start_server(path: Path, warm_up: str) -> socket.socket | None:
    """Start a server (unless one runs or warms up: its lock is held) and wait until it accepts
    connections."""
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        client = connect(path)
        if client is not None:
            return client
        server = _launch(path, warm_up)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline and server.poll() is None:
        client = connect(path)
        if client is not None:
            return client
        time.sleep(0.02)
    return connect(path)  # another server won the lock and serves


def start_soon(
    warm_up: str, env: Mapping[str, str], path: Path | None = None, after_exit: bool = False
) -> None:
    """Start the server for `warm_up` in the background unless one runs or is warming up, and
    return at once: for commands that will soon need it (the app, `fork`, `status`, an editor's
    first ACP session). `path`: its socket, when the caller has it already (see `spawn`).
    `after_exit`: the server warms up only once this process has exited, for a run that does
    the same imports itself (both at once took the run's CPU; a server that waits holds no lock,
    so whoever needs one sooner starts their own, and the one that waited then leaves)."""
    if not enabled(env):
        return
    try:
        path = path or socket_path(warm_up, env)
        with open(path.with_suffix(".lock"), "w") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return  # a server is warming up, or a client is starting one
            running = connect(path)
            if running is not None:
                running.close()
                return
            _launch(path, warm_up, after_exit)
    except OSError:
        return  # only a head start: the run that needs it starts one itself


def wait_serving(warm_up: str, env: Mapping[str, str], timeout_s: float = START_TIMEOUT_S) -> bool:
    """Wait until the server for `warm_up` accepts runs (one that a run started without
    waiting for it, say); whether it does within `timeout_s`."""
    path = socket_path(warm_up, env)
    deadline = time.monotonic() + timeout_s
    while (client := connect(path)) is None:
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
    client.close()  # a connection closed without a request: the server takes it as a check
    return True


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


class WarmChild:
    """A forked run: its pid, the connection that reports its exit code, and what already arrived
    after the pid line (the exit line of a quick child may come in the same read). A plain class,
    not a dataclass: `dataclasses` (and its `inspect`) would be most of a warm client's imports."""

    def __init__(self, pid: int, connection: socket.socket, pending: bytes = b"") -> None:
        self.pid = pid
        self.connection = connection
        self.pending = pending


def spawn(
    entry: str,
    argv: Sequence[str],
    warm_up: str,
    *,
    cwd: Path,
    env: Mapping[str, str],
    stdio: Sequence[int],
    own_group: bool = False,
    start: bool = True,
    path: Path | None = None,
) -> WarmChild | None:
    """Fork `entry(argv)` in the warm server for `warm_up` (started if none runs and `start`)
    with `stdio` as its fds 0-2; None when no server could be reached. `own_group`: the child
    leads a new process group (pgid = pid) before it reports its pid, so the caller can signal
    everything it starts. `path`: the server's socket, when the caller has it already (finding
    it scans our code: a few milliseconds). Blocking (a new server takes seconds to warm up):
    async callers run it in a thread."""
    try:
        path = path or socket_path(warm_up, env)
        connection = connect(path) or (_start_server(path, warm_up) if start else None)
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


def run_warm(
    entry: str, argv: Sequence[str], warm_up: str, start: bool = True, path: Path | None = None
) -> int | None:
    """Run `entry(argv)` in a warm child with this process's stdio, cwd and environment; its exit
    code, or None when no warm server could be reached (the caller then runs in-process).
    `start=False`: only a server already running will do (none is started and waited for).
    `path`: as for `spawn`."""
    child = spawn(
        entry,
        argv,
        warm_up,
        cwd=Path.cwd(),
        env=os.environ,
        stdio=(0, 1, 2),
        start=start,
        path=path,
    )
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
    connection = connect(socket_path(warm_up, env))
    if connection is None:
        return False
    with connection:
        connection.sendall(b'{"stop": true}\n')
        connection.recv(1)
    return True
