"""What a session says of its servers: one that wants an OAuth sign-in is reported as such (over
streamable HTTP the SDK says only "an error response"), and a tool's annotations reach the
model in its description."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from mcp.types import Tool, ToolAnnotations

from workbench.mcp.config import ServerConfig
from workbench.mcp.servers import McpServers, _description


class Unauthorized(BaseHTTPRequestHandler):
    """Every request answered as a server behind OAuth answers it."""

    def do_POST(self) -> None:
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Bearer realm="mcp"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def locked_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Unauthorized)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp"
    finally:
        server.shutdown()
        server.server_close()


async def test_a_server_that_wants_a_sign_in_is_reported_as_such(locked_url: str) -> None:
    servers = McpServers(
        [
            ServerConfig("locked", "http", "user", url=locked_url),
            ServerConfig("old", "sse", "user", url=locked_url),
        ],
        timeout=60,
    )
    await servers.start()
    await servers.close()
    for status in servers.status:
        assert status.state == "failed"
        assert status.error == (
            f"MCP server {status.name} needs sign-in (OAuth), which workbench does not do yet: "
            "it answered 401 Unauthorized"
        )


def test_a_tools_title_and_annotations_are_in_its_description() -> None:
    listed = Tool(
        name="search",
        description="Search the issues.",
        input_schema={"type": "object"},
        annotations=ToolAnnotations(
            title="Issue search", read_only_hint=True, destructive_hint=False, open_world_hint=True
        ),
    )
    assert _description("gh", listed) == (
        "Issue search: Search the issues.\n[MCP server gh (read-only, reaches outside systems)]"
    )
