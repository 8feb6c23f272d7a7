"""The tests' network guard: no connection and no DNS lookup beyond loopback.

`install` patches `socket.socket.connect`, `connect_ex` and `socket.getaddrinfo`: a non-loopback
address is refused (ConnectionRefusedError, or socket.gaierror for a lookup, as on a machine
without network) and reported. tests/conftest.py installs it in the pytest process, and puts
`netguard_site/` on PYTHONPATH so that every Python process a test starts (workbench children,
warm interpreters) installs it too and reports to the file named by `LOG_VARIABLE`. A library
that reaches for the network on our code path (a tokenizer download, a price map) then fails the
run even when the machine has a network.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from typing import Any

LOG_VARIABLE = "WORKBENCH_TEST_NETGUARD_LOG"
LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", ""}


def is_loopback(host: object) -> bool:
    """A loopback IP, `localhost`, no host at all (binding), or a Unix socket path."""
    if host is None or isinstance(host, bytes):
        return True
    if isinstance(host, str) and host.lower() in LOOPBACK_NAMES:
        return True
    import ipaddress  # here, not at start-up: every test subprocess loads this module

    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False


def _address_host(address: object) -> object:
    if isinstance(address, (str, bytes)):  # AF_UNIX path
        return None
    return address[0] if isinstance(address, tuple) else address


def install(report: Callable[[str], None]) -> None:
    """Refuse non-loopback connections and lookups in this process; `report` hears of each."""
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def guarded(real: Callable[[socket.socket, object], Any]) -> Callable[..., Any]:
        def connect(self: socket.socket, address: object) -> Any:
            if not is_loopback(_address_host(address)):
                report(f"connection to {address!r}")
                raise ConnectionRefusedError(f"test guard: non-loopback connection to {address!r}")
            return real(self, address)

        return connect

    def getaddrinfo(host: object, *args: Any, **kwargs: Any) -> Any:
        if not is_loopback(host.decode() if isinstance(host, bytes) else host):
            report(f"DNS lookup of {host!r}")
            raise socket.gaierror(socket.EAI_NONAME, f"test guard: DNS lookup of {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    socket.socket.connect = guarded(real_connect)  # type: ignore[method-assign]
    socket.socket.connect_ex = guarded(real_connect_ex)  # type: ignore[method-assign]
    socket.getaddrinfo = getaddrinfo


def log_to_file() -> Callable[[str], None]:
    """A reporter that appends to the file named by `LOG_VARIABLE` (for test subprocesses)."""
    path = os.environ.get(LOG_VARIABLE)

    def report(attempt: str) -> None:
        if path:
            with open(path, "a", encoding="utf-8") as log:
                log.write(f"pid {os.getpid()}: {attempt}\n")

    return report
