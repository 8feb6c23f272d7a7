"""A litellm stream read up to the end of the reply, without litellm's own ending.

When a provider's stream ends, litellm's stream wrapper (`CustomStreamWrapper`) builds the whole
reply again from its chunks, prices it (for a model its price map lacks, a failed look-up with a
formatted traceback) and starts its success logging, and does part of it once more at the call
after: 5-20 ms before the caller sees the end, on the path from a reply's tool call to the next
request. Nothing of ours uses any of it: the reply is assembled from the deltas, and the cost
comes from the usage.

`chunks` puts a `Watch` between the wrapper and the provider's stream (the one object the wrapper
reads from). Once a chunk has carried the finish reason and litellm has kept a chunk with the
usage (in the same chunk for Anthropic, in the one after it for OpenAI), the watch reads what is
left of the provider's stream (`[DONE]`, `message_stop`: the connection stays reusable) without
handing it on, and raises `Ended`, which litellm's failure handlers (`except Exception`) let
through; without usage, it does so where the provider's stream ends. `usage` then combines the
usage litellm kept from the chunks as its rebuild would. A stream that ends without a finish
reason in a chunk goes on through litellm's own end, as before (its made-up or held-back finish
reason included).
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import AsyncIterator
from typing import Any

from workbench.messages import StopReason, Usage, token_count

FINISH_REASONS: dict[str, StopReason] = {
    "stop": "stop",
    "end_turn": "stop",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "tool_use": "tool_calls",
    "length": "length",
    "max_tokens": "length",
    "content_filter": "stop",
}


class Ended(BaseException):
    """The reply is complete. Not an `Exception`: litellm turns those into failures (and logs
    them) on their way out of its wrapper."""


class Watch:
    """The provider's stream as litellm's wrapper `response` reads it, raising `Ended` once the
    reply is complete (once; after that, the end as usual). One iterator over it for the whole
    reply, where the wrapper would ask for a new one, left unfinished, per chunk."""

    def __init__(self, stream: Any, response: Any) -> None:
        self.stream = stream
        self._items: Any = stream.__aiter__()
        self._response = response
        self.finished_at: int | None = None
        """How many chunks litellm had kept when the one with the finish reason was handed on."""
        self.ended = False
        self.early = False
        """Whether the reply ended here, without litellm's end (`chunks`)."""

    def __aiter__(self) -> Watch:
        return self

    async def __anext__(self) -> Any:
        if self.ended:
            raise StopAsyncIteration
        if self._complete():
            with contextlib.suppress(Exception):  # the reply is whole: a drop now loses nothing
                async for _ in self._items:
                    pass
            self.ended = True
            raise Ended
        try:
            return await self._items.__anext__()
        except StopAsyncIteration:
            self.ended = True
            raise Ended from None

    def _complete(self) -> bool:
        """Whether the finish reason was handed on and a chunk with the usage kept since."""
        if self.finished_at is None:
            return False
        kept = self._response.chunks[max(self.finished_at - 1, 0) :]
        return any(getattr(chunk, "usage", None) is not None for chunk in kept)

    async def aclose(self) -> None:
        """Closed as the wrapper closes a provider's stream (`aclose`, else `close`)."""
        if inspect.isasyncgen(self._items) and self._items is not self.stream:
            await self._items.aclose()
        close = getattr(self.stream, "aclose", None) or getattr(self.stream, "close", None)
        if close is not None:
            result = close()
            if inspect.isawaitable(result):
                await result


def _watch(response: Any) -> Watch | None:
    """The watch on the provider's stream inside `response`, put there now if need be (the
    stream may be made at the first chunk); None for one litellm reads through a thread."""
    stream = getattr(response, "completion_stream", None)
    if isinstance(stream, Watch):
        return stream
    if stream is None or isinstance(stream, (str, bytes)) or not hasattr(stream, "__aiter__"):
        return None
    watch = Watch(stream, response)
    response.completion_stream = watch
    return watch


async def chunks(response: Any) -> AsyncIterator[Any]:
    """The chunks of litellm's streamed `response`, to the end of the reply once a chunk has
    carried the finish reason (`ended_early` then says so), else to litellm's end."""
    watch: Watch | None = None
    while True:
        watch = watch or _watch(response)
        try:
            chunk = await response.__anext__()
        except StopAsyncIteration:
            return
        except Ended:
            if watch is not None and watch.finished_at is not None:
                watch.early = True
                return
            continue  # litellm's own end: the watch ends as usual now
        finished = any(choice.finish_reason for choice in chunk.choices or [])
        if finished and watch is not None and watch.finished_at is None:
            watch.finished_at = len(response.chunks)
        yield chunk


def ended_early(response: Any) -> bool:
    """Whether `chunks` ended `response` without litellm's end."""
    stream = getattr(response, "completion_stream", None)
    return isinstance(stream, Watch) and stream.early


def usage(response: Any) -> Any:
    """The usage of a reply `chunks` ended early, combined from the chunks litellm kept as its
    rebuild combines them (Anthropic's input side comes first, its output side last); litellm's
    `Usage`, zeros when the stream reported none."""
    from litellm.litellm_core_utils.streaming_chunk_builder_utils import ChunkProcessor

    kept = list(response.chunks)
    if not kept:
        return None
    return ChunkProcessor(kept).calculate_usage(
        chunks=kept, model=response.model or "", completion_output=""
    )


def our_usage(raw: Any) -> Usage | None:
    """The usage the server reported, in our vocabulary (see `Usage`); None when it reported none
    (litellm then fills in zeros, its own counter being off) or figures no count can be (a
    negative one). litellm gives every provider's usage the OpenAI shape: `prompt_tokens` counts
    the cached tokens (read and written) too, Anthropic's `input_tokens` are what remains once
    they are taken out."""
    details = getattr(raw, "prompt_tokens_details", None)
    read = getattr(details, "cached_tokens", None) or getattr(raw, "cache_read_input_tokens", 0)
    written = getattr(raw, "cache_creation_input_tokens", None) or getattr(
        details, "cache_creation_tokens", 0
    )
    given = (getattr(raw, "prompt_tokens", 0), read, written, getattr(raw, "completion_tokens", 0))
    counts = [token_count(n) for n in given]
    if None in counts:
        return None
    prompt, read, written, output = (n or 0 for n in counts)
    usage = Usage(
        input_tokens=max(prompt - read - written, 0),
        output_tokens=output,
        cache_read_tokens=read,
        cache_write_tokens=written,
    )
    return usage if usage.prompt_tokens or usage.output_tokens else None
