"""Run inside the box when `sandbox.network` lists hosts: the box has no network of its own, so
this listens on the box's loopback and carries each connection to our allow-list proxy through
the Unix socket bound into the box, then runs the command with the proxy variables set.

Usage (by `workbench.sandbox.bwrap`): `python -I bridge.py SOCKET -- COMMAND...`; exits with
the command's exit code. Standard library only: it runs from its file, not from the package.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading

PROXY_VARIABLES = ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")


def _pipe(source: socket.socket, target: socket.socket) -> None:
    try:
        while chunk := source.recv(65536):
            target.sendall(chunk)
    except OSError:
        pass
    finally:
        for end in (source, target):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)


def _carry(client: socket.socket, path: str) -> None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(path)
    except OSError:
        client.close()
        return
    threading.Thread(target=_pipe, args=(upstream, client), daemon=True).start()
    _pipe(client, upstream)


def _serve(listener: socket.socket, path: str) -> None:
    while True:
        client, _ = listener.accept()
        threading.Thread(target=_carry, args=(client, path), daemon=True).start()


def main(argv: list[str]) -> int:
    path, separator, *command = argv
    if separator != "--" or not command:
        print("usage: bridge.py SOCKET -- COMMAND...", file=sys.stderr)
        return 2
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    threading.Thread(target=_serve, args=(listener, path), daemon=True).start()
    address = f"http://127.0.0.1:{listener.getsockname()[1]}"
    env = {**os.environ, **dict.fromkeys(PROXY_VARIABLES, address), "NO_PROXY": "", "no_proxy": ""}
    code = subprocess.run(command, env=env, check=False).returncode
    return 128 - code if code < 0 else code  # killed by a signal: as a shell reports it


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
