"""An HTTP MCP server's answers read within the bound a stdio server's are (`MAX_MESSAGE`).

The SDK reads a streamable HTTP answer whole before it parses it: a server that sends 100 MB
has it all read into memory and parsed on the thread the app shares through the GIL. The
transport here counts each POST answer's bytes as they arrive and stops reading past the
bound, with an error the SDK hands to the waiting call (which then fails with a tool error
that says why). The long-lived GET streams of server notifications are left to the SDK, which
bounds each of their events.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx2

from workbench.mcp.stdio import MAX_MESSAGE


class AnswerTooLarge(httpx2.StreamError):
    """An answer over the bound: the SDK turns a stream error into the call's error."""


class _BoundedBody(httpx2.AsyncByteStream):
    def __init__(self, body: httpx2.AsyncByteStream, bound: int) -> None:
        self._body, self._bound = body, bound

    async def __aiter__(self) -> AsyncIterator[bytes]:
        read = 0
        async for chunk in self._body:
            read += len(chunk)
            if read > self._bound:
                raise AnswerTooLarge(
                    f"the server's answer is over the {self._bound / 2**20:.1f} MB workbench "
                    "reads: it was dropped unread, so this call has no result"
                )
            yield chunk

    async def aclose(self) -> None:
        await self._body.aclose()


class BoundedTransport(httpx2.AsyncBaseTransport):
    """httpx's own transport, each POST answer's body read up to `bound` bytes."""

    def __init__(self, bound: int = MAX_MESSAGE) -> None:
        self._inner, self._bound = httpx2.AsyncHTTPTransport(), bound

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        if request.method != "POST":
            return response
        body = response.stream
        assert isinstance(body, httpx2.AsyncByteStream)
        return httpx2.Response(
            response.status_code,
            headers=response.headers,
            stream=_BoundedBody(body, self._bound),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()
