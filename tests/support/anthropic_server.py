"""A local Anthropic Messages API server that streams real SSE events from a per-test script.

Tests point litellm at it (`--model anthropic/claude-... --api-base URL`), so litellm's own
Anthropic transformation runs: our OpenAI-format request becomes a Messages API body (system
blocks, tools, `cache_control` breakpoints) and the server's events (`message_start` with the
usage, including `cache_creation_input_tokens` and `cache_read_input_tokens`,
`content_block_start` / `content_block_delta` / `content_block_stop`, `message_delta` with the
stop reason and output tokens, `message_stop`) become our deltas and usage. Each request takes
the next `AnthropicReply` of the script (or a callable given the body); every request body and its
headers (names in lower case) are kept in `requests` and `headers`. With a `PromptCache`, the
input side of each reply's usage is what Anthropic's cache would report for that body (for
`tests/benchmarks/measure_cache.py`); `breakpoints(body)` lists where a body asks for caching.
"""

from __future__ import annotations

import hashlib
import json
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler
from typing import Any

from support.openai_server import LocalServer, _words


@dataclass
class AnthropicReply:
    """A streamed message. `usage` goes into `message_start` (input side) and `message_delta`
    (`output_tokens`); None sends zeros, as a server that counts nothing would."""

    text: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    usage: dict[str, int] | None = field(
        default_factory=lambda: {
            "input_tokens": 100,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 20,
        }
    )
    stop_reason: str = "auto"
    fragment_size: int = 9


def usage_of(uncached: int, read: int, write: int, output: int) -> dict[str, int]:
    """A reply's `usage` in the Messages API's names."""
    return {
        "input_tokens": uncached,
        "cache_read_input_tokens": read,
        "cache_creation_input_tokens": write,
        "output_tokens": output,
    }


def breakpoints(body: dict[str, Any]) -> list[str]:
    """Where a request body asks for cache breakpoints, in prompt order: `tools[i]`,
    `system[i]`, `messages[i].content[j]` (with the role), and the `ttl` when one is set."""
    found: list[str] = []

    def mark(where: str, block: Any) -> None:
        control = block.get("cache_control") if isinstance(block, dict) else None
        if control:
            found.append(where + (f" ttl={control['ttl']}" if control.get("ttl") else ""))

    for index, tool in enumerate(body.get("tools") or []):
        mark(f"tools[{index}]", tool)
    system = body.get("system")
    for index, block in enumerate(system if isinstance(system, list) else []):
        mark(f"system[{index}]", block)
    for index, message in enumerate(body.get("messages") or []):
        content = message.get("content")
        for part, block in enumerate(content if isinstance(content, list) else []):
            mark(f"messages[{index}].content[{part}] ({message.get('role')})", block)
    return found


def events(reply: AnthropicReply, model: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """The (event name, data) pairs of a streamed message, in order."""
    usage = dict(reply.usage or {})
    start_usage = {
        "input_tokens": usage.get("input_tokens", 0),
        "cache_creation_input_tokens": usage.get("cache_creation_input_tokens", 0),
        "cache_read_input_tokens": usage.get("cache_read_input_tokens", 0),
        "output_tokens": 1 if reply.usage else 0,
    }
    message = {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": start_usage,
    }
    yield "message_start", {"type": "message_start", "message": message}
    index = 0
    if reply.text:
        block = {"type": "text", "text": ""}
        yield (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": block},
        )
        yield "ping", {"type": "ping"}
        for piece in _words(reply.text):
            delta = {"type": "text_delta", "text": piece}
            yield "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": 0}
        index = 1
    for number, call in enumerate(reply.tool_calls, index):
        block = {"type": "tool_use", "id": call.get("id", f"toolu_{number}"), "name": call["name"]}
        block["input"] = {}
        start = {"type": "content_block_start", "index": number, "content_block": block}
        yield "content_block_start", start
        arguments = json.dumps(call["arguments"])
        for at in range(0, len(arguments), reply.fragment_size):
            delta = {
                "type": "input_json_delta",
                "partial_json": arguments[at : at + reply.fragment_size],
            }
            yield (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": number,
                    "delta": delta,
                },
            )
        yield "content_block_stop", {"type": "content_block_stop", "index": number}
    stop = reply.stop_reason
    if stop == "auto":
        stop = "tool_use" if reply.tool_calls else "end_turn"
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": usage.get("output_tokens", 0)},
        },
    )
    yield "message_stop", {"type": "message_stop"}


Scripted = AnthropicReply | Callable[[dict[str, Any]], AnthropicReply]
LOOKBACK = 20
"""Anthropic looks for a cached prefix at each breakpoint and up to 20 blocks before it."""


class PromptCache:
    """Anthropic's prompt cache, simulated closely enough to measure what our breakpoints buy:
    the prompt is a sequence of blocks (tools, system blocks, message content blocks), about
    four characters a token; a breakpoint writes the prefix up to it, and a later request reads
    the longest prefix written before that ends at one of its breakpoints or up to 20 blocks
    before one. Time to live and the minimum cacheable length are left out."""

    def __init__(self) -> None:
        self.written: set[str] = set()

    @staticmethod
    def _blocks(body: dict[str, Any]) -> list[tuple[dict[str, Any], bool]]:
        blocks: list[tuple[dict[str, Any], bool]] = []
        for tool in body.get("tools") or []:
            blocks.append((tool, bool(tool.get("cache_control"))))
        system = body.get("system") or []
        for block in [{"type": "text", "text": system}] if isinstance(system, str) else system:
            blocks.append((block, bool(block.get("cache_control"))))
        for message in body.get("messages") or []:
            content = message.get("content")
            if isinstance(content, str):
                content = [{"type": "text", "text": content}]
            for block in content or []:
                blocks.append(
                    ({"role": message["role"], **block}, bool(block.get("cache_control")))
                )
        return blocks

    def usage(self, body: dict[str, Any]) -> tuple[int, int, int]:
        """(uncached input, cache read, cache write) tokens of a request, and remember what it
        wrote."""
        keys, sizes, marks = [], [], []
        digest = hashlib.sha256()
        total = 0
        for index, (block, marked) in enumerate(self._blocks(body)):
            plain = {k: v for k, v in block.items() if k != "cache_control"}
            text = json.dumps(plain, sort_keys=True)
            digest.update(text.encode())
            total += len(text) // 4 + 1
            keys.append(digest.copy().hexdigest())
            sizes.append(total)
            if marked:
                marks.append(index)
        read = 0
        for mark in marks:
            for index in range(max(0, mark - LOOKBACK + 1), mark + 1):
                if keys[index] in self.written:
                    read = max(read, sizes[index])
        cached_end = sizes[marks[-1]] if marks else 0
        write = max(cached_end - read, 0)
        self.written.update(keys[mark] for mark in marks)
        return total - read - write, read, write


class AnthropicServer(LocalServer):
    """The Anthropic Messages API (`POST /v1/messages`), streamed as SSE."""

    def __init__(
        self, script: list[Scripted] | None = None, cache: PromptCache | None = None
    ) -> None:
        self.cache = cache
        """When given, each reply's input-side usage is what this simulated cache says."""
        self.paths: list[str] = []
        super().__init__(script)

    @property
    def url(self) -> str:
        """The API base to hand to litellm (`--api-base`); it adds `/v1/messages`."""
        return self.origin

    def _next(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> AnthropicReply:
        with self._lock:
            self.paths.append(path)
            self.requests.append(body)
            self.headers.append(headers)
            item = self.script.pop(0) if self.script else AnthropicReply("(script finished)")
            reply = item(body) if callable(item) else item
            if self.cache is not None:
                uncached, read, write = self.cache.usage(body)
                output = (reply.usage or {}).get("output_tokens", 20)
                reply = replace(reply, usage=usage_of(uncached, read, write, output))
        return reply

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: tests read `requests` instead."""

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                headers = {k.lower(): v for k, v in self.headers.items()}
                reply = server._next(self.path, body, headers)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                try:
                    for name, data in events(reply, str(body.get("model", "claude-test"))):
                        text = f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
                        self.wfile.write(f"{len(text):x}\r\n".encode() + text + b"\r\n")
                        self.wfile.flush()
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True

        return Handler


if __name__ == "__main__":
    with AnthropicServer([AnthropicReply(**i) for i in json.loads(sys.argv[1])]) as running:
        print(running.url, flush=True)
        threading.Event().wait()
