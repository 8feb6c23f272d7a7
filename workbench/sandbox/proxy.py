"""The allow-list proxy: the only way out of a box whose network is off, for the hosts in
`sandbox.network` and nothing else (as Claude Code's sandbox runtime does).

It listens on a Unix socket that is bound into the box (`workbench.sandbox.bridge` carries the
box's connections to it). It speaks HTTP `CONNECT host:port` (HTTPS, and any TCP a client tunnels)
and plain HTTP requests with an absolute URL. A host that is not listed, or a listed name that
resolves to a loopback address while `sandbox.network_loopback` is off, gets `403` with a reason
the model can read; each refusal is kept in `refused` for the tool's result.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import tempfile
from pathlib import Path
from socket import SOCK_STREAM
from urllib.parse import urlsplit

DENIED_HEADER = "X-Workbench-Sandbox: denied"


def host_allowed(host: str, allowed: tuple[str, ...]) -> bool:
    """Whether `host` is listed: exactly, or under a `*.domain` entry."""
    host = host.lower().rstrip(".")
    for entry in (e.lower().rstrip(".") for e in allowed):
        if host == entry or (entry.startswith("*.") and host.endswith(entry[1:])):
            return True
    return False


def _target(request_line: str) -> tuple[str, str, int, str] | None:
    """(method, host, port, origin-form request line) of a proxy request; None if malformed."""
    parts = request_line.split(" ")
    if len(parts) != 3:
        return None
    method, target, version = parts
    if method == "CONNECT":
        host, _, port = target.rpartition(":")
        return (method, host.strip("[]"), int(port), "") if port.isdigit() and host else None
    url = urlsplit(target)
    if url.scheme != "http" or not url.hostname:
        return None
    path = url.path or "/"
    if url.query:
        path += "?" + url.query
    return method, url.hostname, url.port or 80, f"{method} {path} {version}"


class AllowListProxy:
    """One proxy for one boxed command; `socket_path` is what the box binds."""

    def __init__(self, allowed: tuple[str, ...], loopback: bool) -> None:
        self.allowed = allowed
        self.loopback = loopback
        self.refused: list[str] = []
        self._folder = Path(tempfile.mkdtemp(prefix="workbench-proxy-"))
        self.socket_path = self._folder / "proxy.sock"
        self._server: asyncio.Server | None = None

    async def start(self) -> AllowListProxy:
        self._server = await asyncio.start_unix_server(self._handle, path=str(self.socket_path))
        return self

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 1)
        self.socket_path.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            self._folder.rmdir()

    async def _refuse(self, writer: asyncio.StreamWriter, host: str, why: str) -> None:
        self.refused.append(f"{host} ({why})")
        body = f"workbench sandbox: connection to {host} refused: {why}\n".encode()
        writer.write(
            b"HTTP/1.1 403 Forbidden\r\n" + DENIED_HEADER.encode() + b"\r\n"
            b"Content-Type: text/plain\r\nConnection: close\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        with contextlib.suppress(OSError):
            await writer.drain()

    async def _addresses(self, host: str, port: int) -> tuple[list[str], str | None]:
        """The addresses to try, or why not. The name is resolved once, here: the
        connection goes to the address that was checked (no second lookup to rebind)."""
        if not host_allowed(host, self.allowed):
            return [], f"not in sandbox.network ({', '.join(self.allowed)})"
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=SOCK_STREAM)
        except OSError as exc:
            return [], f"cannot resolve it: {exc}"
        addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
        if not self.loopback and any(ipaddress.ip_address(a).is_loopback for a in addresses):
            return [], "it resolves to a loopback address and sandbox.network_loopback is off"
        return addresses, None

    async def _connect(
        self, addresses: list[str], port: int
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """A connection to the first address that answers."""
        failure = OSError(f"no address of the host answered on port {port}")
        for address in addresses:
            try:
                return await asyncio.open_connection(address, port)
            except OSError as exc:
                failure = exc
        raise failure

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, OSError):
            writer.close()
            return
        first, _, rest = head.decode("latin-1").partition("\r\n")
        target = _target(first)
        if target is None:
            await self._refuse(writer, first[:80], "not a proxy request")
            writer.close()
            return
        method, host, port, origin_line = target
        addresses, why = await self._addresses(host, port)
        if why is not None:
            await self._refuse(writer, host, why)
            writer.close()
            return
        try:
            up_reader, up_writer = await self._connect(addresses, port)
        except OSError as exc:
            await self._refuse(writer, host, f"cannot connect: {exc.strerror or exc}")
            writer.close()
            return
        if method == "CONNECT":
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:
            up_writer.write(f"{origin_line}\r\n{rest}".encode("latin-1"))
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))


async def _pipe(source: asyncio.StreamReader, target: asyncio.StreamWriter) -> None:
    try:
        while chunk := await source.read(65536):
            target.write(chunk)
            await target.drain()
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            target.close()
