"""`sandbox.network`: the box reaches the listed hosts through our proxy and nothing else. The
allowed host is a server on our loopback (so `network_loopback` is on for it): no test leaves
the machine."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from workbench.agent.tools.bash import execute
from workbench.sandbox import SandboxPolicy
from workbench.tool import ToolContext, ToolResult

FETCH = (
    'python3 -c "import sys, urllib.request as u; print(u.urlopen(sys.argv[1], timeout=30)'
    '.read().decode())" {url}'
)


class Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = f"hello from {self.path}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def site() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hello)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


async def fetch(project: Path, url: str, **policy: object) -> ToolResult:
    box = SandboxPolicy(mode="workspace", network=("localhost",), **policy)  # type: ignore[arg-type]
    return await execute({"command": FETCH.format(url=url)}, ToolContext(project, sandbox=box))


async def test_a_listed_host_passes_through_the_proxy(work: Path, site: int):
    result = await fetch(work, f"http://localhost:{site}/page", network_loopback=True)
    assert "hello from /page" in result.text, result.text
    assert not result.is_error


async def test_a_listed_host_is_reached_through_a_connect_tunnel_as_https_would(
    work: Path, site: int
):
    tunnel = (
        "import os, socket, urllib.parse as p; u = p.urlsplit(os.environ['HTTPS_PROXY']);"
        "s = socket.create_connection((u.hostname, u.port));"
        f"s.sendall(b'CONNECT localhost:{site} HTTP/1.1\\r\\n\\r\\n');"
        "print(s.recv(200).split(b'\\r\\n')[0]);"
        "s.sendall(b'GET /tunnelled HTTP/1.0\\r\\n\\r\\n');"
        "print(b''.join(iter(lambda: s.recv(4096), b'')).decode())"
    )
    box = SandboxPolicy(mode="strict", network=("localhost",), network_loopback=True)
    result = await execute({"command": f'python3 -c "{tunnel}"'}, ToolContext(work, sandbox=box))
    assert "200 Connection established" in result.text, result.text
    assert "hello from /tunnelled" in result.text


async def test_a_host_not_listed_is_refused_with_a_reason(work: Path, site: int):
    result = await fetch(work, f"http://elsewhere.example:{site}/", network_loopback=True)
    assert "hello" not in result.text
    assert "403" in result.text
    assert "network: refused elsewhere.example (not in sandbox.network (localhost))" in result.text


async def test_a_listed_name_on_loopback_is_refused_while_loopback_is_off(work: Path, site: int):
    result = await fetch(work, f"http://localhost:{site}/page")
    assert "hello" not in result.text
    assert "loopback address and sandbox.network_loopback is off" in result.text


async def test_without_the_proxy_the_box_reaches_nothing(work: Path, site: int):
    box = SandboxPolicy(mode="workspace")
    command = FETCH.format(url=f"http://localhost:{site}/page")
    result = await execute({"command": command}, ToolContext(work, sandbox=box))
    assert "hello" not in result.text
    assert "network: the box has no network" in result.text
