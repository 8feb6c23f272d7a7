"""A local OpenAI-compatible chat server that streams real SSE chunks from a per-test script.

Tests point litellm at it (`--model openai/NAME --api-base URL`), so the real litellm and OpenAI SDK
code paths run, over loopback only. Each request takes the next item of the script:

- `Reply`: a streamed answer: text in pieces, reasoning, tool calls whose arguments arrive in
  fragments, usage, a finish reason; optionally slow (`delay_s`) or cut off after some chunks;
- `Status`: an HTTP error (429 with Retry-After, 503, a context-overflow 400, ...);
- a callable taking the request body and returning either of the above.

The server records every request body (`requests`) and its headers (`headers`, names in lower
case) so tests assert what the model was sent, and counts clients that hung up mid-stream
(`disconnects`). Use it from pytest, from Textual Pilot tests, or from another process
(`python tests/support/openai_server.py SCRIPT.json` prints the URL).
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


@dataclass
class Reply:
    """A streamed completion. `pieces` overrides how `text` is split (default: by word).

    `tool_calls`: [{"name", "arguments" (dict or raw str), "id"?}]; arguments are sent in
    fragments of `fragment_size` characters. `finish_reason` None sends no finish reason at all.
    `cut_after`: stop after this many chunks (`delay_s` after the last): `cut="clean"` ends the
    HTTP body properly (no finish reason, no [DONE]); `cut="drop"` closes the socket mid-body
    (what the client had not read by then is lost, as on a real dropped line).
    `hold_after`: after this many chunks, wait until the test sets `release` (a reply frozen
    mid-stream, for pictures of a stream in progress).
    `usage` is sent as it is (strings, floats, negatives: what odd servers send); `null_usage`
    sends a last chunk whose `usage` is null instead.
    """

    text: str = ""
    pieces: list[str] | None = None
    reasoning: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    usage: dict[str, Any] | None = field(
        default_factory=lambda: {"prompt_tokens": 100, "completion_tokens": 20}
    )
    null_usage: bool = False
    finish_reason: str | None = "auto"
    fragment_size: int = 7
    delay_s: float = 0.0
    cut_after: int | None = None
    cut: str = "clean"
    hold_after: int | None = None
    release: threading.Event = field(default_factory=threading.Event)


@dataclass
class Raw:
    """A 200 answer that is not an OpenAI stream: an HTML page, a proxy's text, garbage."""

    body: bytes
    content_type: str = "text/html"


@dataclass
class Status:
    """An HTTP error response with an OpenAI-style error body."""

    code: int
    message: str = "error"
    retry_after: float | None = None
    error_code: str | None = None


Scripted = Reply | Status | Raw | Callable[[dict[str, Any]], "Reply | Status | Raw"]

CONTEXT_OVERFLOW = Status(
    400,
    "This model's maximum context length is 8192 tokens. However, your messages resulted in "
    "9000 tokens. Please reduce the length of the messages.",
    error_code="context_length_exceeded",
)


def _words(text: str) -> list[str]:
    pieces, current = [], ""
    for char in text:
        current += char
        if char == " ":
            pieces.append(current)
            current = ""
    return [*pieces, current] if current else pieces


def chunks(reply: Reply, model: str) -> Iterator[dict[str, Any]]:
    """The chat.completion.chunk objects of a reply, in order."""
    base = {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0, "model": model}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    yield chunk({"role": "assistant", "content": ""})
    if reply.reasoning:
        yield chunk({"reasoning_content": reply.reasoning})
    for piece in reply.pieces if reply.pieces is not None else _words(reply.text):
        yield chunk({"content": piece})
    for index, call in enumerate(reply.tool_calls):
        raw = call["arguments"]
        arguments = raw if isinstance(raw, str) else json.dumps(raw)
        head = {"index": index, "id": call.get("id", f"call_{index}"), "type": "function"}
        yield chunk({"tool_calls": [{**head, "function": {"name": call["name"], "arguments": ""}}]})
        for start in range(0, len(arguments), reply.fragment_size):
            fragment = arguments[start : start + reply.fragment_size]
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": fragment}}]})
    finish = reply.finish_reason
    if finish == "auto":
        finish = "tool_calls" if reply.tool_calls else "stop"
    if finish is not None:
        yield chunk({}, finish)
    if reply.null_usage:
        yield {**base, "choices": [], "usage": None}
    elif reply.usage is not None:
        usage = dict(reply.usage)
        counts = (usage.get("prompt_tokens"), usage.get("completion_tokens"))
        if all(type(n) is int for n in counts):
            usage.setdefault("total_tokens", sum(counts))
        yield {**base, "choices": [], "usage": usage}


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients hanging up (aborts, keep-alive connections closed) are expected here."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class LocalServer:
    """A threaded HTTP server on 127.0.0.1 at a random port that plays a script of replies and
    records the requests; a context manager. Subclasses answer in their provider's format."""

    def __init__(self, script: list[Any] | None = None) -> None:
        self.script: list[Any] = list(script or [])
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        self._httpd = _QuietServer(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def origin(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def add(self, *items: Any) -> None:
        with self._lock:
            self.script.extend(items)

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        raise NotImplementedError


class OpenAIServer(LocalServer):
    """The OpenAI chat completions API, streamed as SSE."""

    def __init__(self, script: list[Scripted] | None = None) -> None:
        self.request_times: list[float] = []
        self.disconnects = 0
        super().__init__(script)

    @property
    def url(self) -> str:
        """The API base to hand to litellm (`--api-base`)."""
        return f"{self.origin}/v1"

    def wait_for_disconnects(self, count: int, timeout: float = 5.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.disconnects >= count:
                return True
            time.sleep(0.02)
        return False

    def _next(self, body: dict[str, Any], headers: dict[str, str]) -> Reply | Status | Raw:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            self.request_times.append(time.perf_counter())
            item = self.script.pop(0) if self.script else Reply(text="(server script finished)")
        return item(body) if callable(item) else item

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # each SSE event leaves at once, as from a real server

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: tests read `requests` instead."""

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                item = server._next(body, {k.lower(): v for k, v in self.headers.items()})
                if isinstance(item, Status):
                    self._status(item)
                elif isinstance(item, Raw):
                    self._raw(item)
                else:
                    self._stream(item, str(body.get("model", "test")))

            def _status(self, status: Status) -> None:
                payload = json.dumps(
                    {
                        "error": {
                            "message": status.message,
                            "type": "invalid_request_error" if status.code == 400 else "error",
                            "code": status.error_code,
                        }
                    }
                ).encode()
                self.send_response(status.code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                if status.retry_after is not None:
                    self.send_header("Retry-After", f"{status.retry_after:g}")
                self.end_headers()
                self.wfile.write(payload)

            def _raw(self, raw: Raw) -> None:
                self.send_response(200)
                self.send_header("Content-Type", raw.content_type)
                self.send_header("Content-Length", str(len(raw.body)))
                self.end_headers()
                self.wfile.write(raw.body)

            def _write_chunk(self, data: bytes) -> None:
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()

            def _stream(self, reply: Reply, model: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                try:
                    for number, chunk in enumerate(chunks(reply, model)):
                        if reply.delay_s and number:
                            time.sleep(reply.delay_s)
                        if reply.cut_after is not None and number >= reply.cut_after:
                            if reply.cut == "drop":
                                self.close_connection = True
                                return
                            break
                        if number == reply.hold_after:
                            reply.release.wait()
                        self._write_chunk(f"data: {json.dumps(chunk)}\n\n".encode())
                    else:
                        self._write_chunk(b"data: [DONE]\n\n")
                    self._write_chunk(b"")
                except (BrokenPipeError, ConnectionResetError):
                    with server._lock:
                        server.disconnects += 1
                    self.close_connection = True

        return Handler


def _from_json(item: dict[str, Any]) -> Reply | Status:
    if "status" in item:
        return Status(item["status"], item.get("message", "error"), item.get("retry_after"))
    return Reply(**item)


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as handle:
        items = [_from_json(i) for i in json.load(handle)]
    with OpenAIServer(items) as running:
        print(running.url, flush=True)
        threading.Event().wait()
