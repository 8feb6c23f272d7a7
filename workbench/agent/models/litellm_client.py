"""Any litellm model string, streamed through `litellm.acompletion`.

litellm takes seconds to import, so it is imported only when a call is made (or when `preload()`
starts the import in a background thread early in start-up): `litellm_import` says how.

Retries are ours: litellm's `num_retries` and the OpenAI SDK's `max_retries` are 0, and failures
are raised as classified `ModelError`s. The finish reason is worked out here from what the stream
actually carried; a stream that ends without one is passed on as cut off.

Token counting is ours too: when a stream reports no usage (cut off, or a server that sends none),
litellm would count the tokens itself with the model's tokenizer, and for some models that means
downloading it (tiktoken's `o200k_base` for the gpt-4o family, where the bundled copy is not found,
as in a warm child that took over its caller's environment; Hugging Face tokenizers for others).
Its counter is switched off; such a reply has no usage, and the context is estimated
(`compaction.context_tokens`).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import re
import sys
import threading
from collections.abc import AsyncIterator, Callable
from types import ModuleType
from typing import Any

from workbench.agent.models import call_process, stream_end
from workbench.agent.models.caching import (
    CachePolicy,
    CacheStyle,
    cache_style,
    key_arguments,
    with_breakpoints,
)
from workbench.agent.models.client import (
    Delta,
    ErrorKind,
    Finish,
    ModelError,
    ModelInfo,
    ModelRequest,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
)
from workbench.agent.models.dispatch import first_job_here
from workbench.agent.models.litellm_import import loaded as _litellm
from workbench.agent.models.off_loop import relayed
from workbench.agent.models.openai_format import to_openai
from workbench.agent.models.price_map import priced
from workbench.agent.models.warm_up_reply import TOOL as WARM_UP_TOOL
from workbench.agent.models.warm_up_reply import loopback_reply
from workbench.messages import StopReason, Usage
from workbench.processes import heavy_imports

REQUEST_TIMEOUT_S = 600.0
OVERFLOW_PATTERN = re.compile(
    r"context.?(length|window)|maximum context|prompt is too long|too many tokens|"
    r"input is too long|reduce the length",
    re.IGNORECASE,
)

log = logging.getLogger(__name__)


_preloading: threading.Thread | None = None
_prepared = False
"""True once `_prepare` has run: in a warm child (forked after it) a preload has nothing to do."""


def preload() -> threading.Thread | None:
    """Start preparing litellm in a background thread, overlapping the rest of start-up: its
    import, and one call to a loopback stub for the imports it defers to its first call (which
    would otherwise hold the app's event loop for about a second, keys and all). None when this
    process has done it already (a child forked from a warm interpreter)."""
    global _preloading
    if _prepared:
        return None
    thread = threading.Thread(target=_prepare, name="litellm-import", daemon=True)
    thread.start()
    _preloading = thread
    return thread


def _prepare() -> None:
    """litellm imported, and the modules its first call imports (`heavy_imports.quick` both)."""
    global _prepared
    with heavy_imports.quick():
        try:
            rehearse()
        finally:
            _prepared = True


def rehearse() -> None:
    """One call to the loopback stub (`warm_up_reply`) on a loop of its own: litellm imported
    and the modules its first call imports. Again in a child the warm interpreter forks ahead of
    its run (`warm_server.prepare_spares`): the pages such a call touches are copied and what
    each process makes is made before the run comes, whose first call then took half as long
    (30-60 ms less here)."""
    litellm = _litellm()
    try:
        asyncio.run(_warm_up_call())
    except Exception:  # only a head start: the first real call would do the same
        log.warning("warming litellm up failed; its first call will do it", exc_info=True)
    finally:
        litellm.in_memory_llm_clients_cache.flush_cache()  # its clients: a closed loop's


def preloaded() -> None:
    """Wait until a preload under way has finished (at once when none runs)."""
    preloading = _preloading
    if preloading not in (None, threading.current_thread()):
        preloading.join()


async def _ready() -> ModuleType:
    """litellm, once a preload still under way has finished, or imported now: either waited
    for off the event loop (the app's keys go on meanwhile)."""
    preloading = _preloading
    if preloading not in (None, threading.current_thread()) and preloading.is_alive():
        await asyncio.to_thread(preloading.join)
    if "litellm" not in sys.modules:
        return await asyncio.to_thread(_litellm)
    return _litellm()


def model_info(name: str) -> ModelInfo:
    """Context window, prices and how to ask for caching, from litellm's bundled model map;
    unknown models keep the defaults (window assumed, cost unknown)."""
    if call_process.running():
        return ModelInfo(**call_process.ask("model_info", name))
    litellm = _litellm()
    try:
        known: dict[str, Any] = litellm.get_model_info(name)
    except Exception:  # litellm raises plain Exceptions for models it does not know
        return ModelInfo(name=name, cache_style=_cache_style(litellm, name, {}))
    return priced(ModelInfo(name=name, cache_style=_cache_style(litellm, name, known)), known)


def long_cache_write_cost(name: str) -> float | None:
    """The price of a cache write kept for an hour (Anthropic's `ttl: 1h`), when the map has it."""
    if call_process.running():
        cost: float | None = call_process.ask("long_cache_write_cost", name)
        return cost
    try:
        known: dict[str, Any] = _litellm().get_model_info(name)
    except Exception:
        return None
    return known.get("cache_creation_input_token_cost_above_1hr")


@functools.lru_cache(maxsize=32)
def supported(name: str) -> tuple[str, ...]:
    """The OpenAI parameters litellm passes on for `name` (empty when it cannot tell)."""
    if call_process.running():
        return tuple(call_process.ask("supported", name))
    try:
        return tuple(_litellm().get_supported_openai_params(model=name) or [])
    except Exception:
        return ()


def _cache_style(litellm: ModuleType, name: str, known: dict[str, Any]) -> CacheStyle | None:
    """How `name` is asked to cache (`caching.cache_style`); `known` is its map entry or {}."""
    try:
        provider = str(litellm.get_llm_provider(name)[1])
    except Exception:
        return None
    caches = known.get("supports_prompt_caching") is True
    return cache_style(name, provider, supported(name), caches)


def _retry_after(exc: Exception) -> float | None:
    """The server's Retry-After in seconds (litellm keeps the real headers on the exception)."""
    for headers in (
        getattr(exc, "litellm_response_headers", None),
        getattr(getattr(exc, "response", None), "headers", None),
    ):
        value = headers.get("retry-after") if headers else None
        if value is not None:
            try:
                return float(value)
            except (TypeError, ValueError):
                return None
    return None


def classify(exc: Exception) -> ModelError:
    """A litellm/OpenAI SDK exception as a ModelError the loop can act on."""
    litellm = _litellm()
    status = getattr(exc, "status_code", None)
    text = str(getattr(exc, "message", "") or exc)
    kind: ErrorKind
    if isinstance(exc, litellm.ContextWindowExceededError) or (
        status in (400, 413) and OVERFLOW_PATTERN.search(text)
    ):
        kind = "context_overflow"
    elif isinstance(exc, litellm.RateLimitError) or status == 429:
        kind = "rate_limit"
    elif status in (503, 529) or "overloaded" in text.lower():
        kind = "overloaded"
    elif isinstance(exc, litellm.Timeout):
        kind = "timeout"
    elif isinstance(exc, (litellm.APIConnectionError, litellm.exceptions.MidStreamFallbackError)):
        kind = "connection"
    elif isinstance(status, int) and status >= 500:
        kind = "server"
    elif status in (401, 403):
        kind = "auth"
    elif status in (400, 404, 422):
        kind = "bad_request"
    else:
        kind = "other"
    return ModelError(kind, text.strip() or type(exc).__name__, _retry_after(exc))


LOCAL_SERVER_KEY = "no-key"
"""Sent to an OpenAI-compatible server given by `api_base` when no key is set anywhere."""


def _openai_key() -> bool:
    return bool(os.environ.get("OPENAI_API_KEY"))


class LitellmModel:
    """A model reached through litellm; `api_base`/`api_key` serve OpenAI-compatible servers."""

    def __init__(
        self,
        info: ModelInfo,
        api_base: str | None = None,
        api_key: str | None = None,
        extra: dict[str, Any] | None = None,
        cache: CachePolicy | None = None,
        settle: Callable[[], ModelInfo] | None = None,
        key_source: str = "",
    ) -> None:
        self.info = info
        self.api_base = api_base
        self.api_key = api_key
        self.key_source = key_source
        """Where `api_key` came from (`--api-key`, a setting), for a refused key's hint."""
        self.extra = extra or {}
        self.cache = cache or CachePolicy()
        self._settle = settle
        """The whole info (cache style too), asked for once litellm is loaded, at the first call:
        `info` may be read from the map file alone (`price_map`), to open a session sooner."""
        self._provider: str | None = None

    def _messages(self, request: ModelRequest) -> list[dict[str, Any]]:
        """The conversation in OpenAI format, with Anthropic's breakpoints when they apply."""
        turn = request.purpose == "turn"  # a one-off summary would pay for writes never read
        if turn and self.cache.enabled and self.info.cache_style == "anthropic":
            messages = to_openai(request.system_prompt, request.messages)
            return with_breakpoints(messages, request.system_suffix, self.cache)
        return to_openai(request.full_system_prompt, request.messages)

    def _arguments(self, request: ModelRequest) -> dict[str, Any]:
        arguments: dict[str, Any] = {
            "model": self.info.name,
            "messages": self._messages(request),
            "stream": True,
            "stream_options": {"include_usage": True},
            "num_retries": 0,
            "max_retries": 0,
            "timeout": REQUEST_TIMEOUT_S,
            **self.extra,
        }
        if request.tools:
            arguments["tools"] = [tool.schema() for tool in request.tools]
        if request.purpose == "turn" and self.cache.enabled and self.info.cache_style == "key":
            passed = supported(self.info.name)
            arguments.update(key_arguments(self.cache, request.cache_key, passed))
        if request.max_tokens:
            arguments["max_tokens"] = request.max_tokens
        if self.api_base:
            arguments["api_base"] = self.api_base
        if self.api_key:
            arguments["api_key"] = self.api_key
        elif self.api_base and self.info.name.startswith("openai/") and not _openai_key():
            arguments["api_key"] = LOCAL_SERVER_KEY  # most local servers take any key
        return arguments

    def _explained(self, error: ModelError) -> ModelError:
        """A classified error in words that say what to do: a missing key is a configuration
        error (never retried), a refused connection names the address it tried."""
        text = error.message.lower()
        if "missing credentials" in text or "api_key client option must be set" in text:
            return ModelError(
                "auth",
                f"no API key for {self.info.name}: pass --api-key (any value for a local "
                "server) or set the provider's key (OPENAI_API_KEY, ANTHROPIC_API_KEY, ...)",
            )
        if error.kind == "auth":
            return self._refused(error)
        if error.kind in ("connection", "server") and "connection error" in text:
            where = self.api_base or f"{self.info.name}'s provider"
            return ModelError(
                "connection", f"could not connect to {where}: is the server running there?"
            )
        return error

    def _refused(self, error: ModelError) -> ModelError:
        """A refused key (401, 403): which provider refused it, and where the key came from."""
        try:
            provider = str(_litellm().get_llm_provider(self.info.name)[1])
        except Exception:  # litellm cannot tell: the model string's prefix says it
            provider = self.info.name.partition("/")[0]
        variable = f"{provider.upper()}_API_KEY"
        where = f"the server at {self.api_base}" if self.api_base else provider
        if self.key_source:
            hint = f"the key came from {self.key_source}: check it there"
        elif self.api_base and self.info.name.startswith("openai/") and not _openai_key():
            hint = "the server wants a key: pass it with --api-key, or set OPENAI_API_KEY"
        else:
            hint = f"the key came from {variable}: set it to a valid {provider} key, or pass "
            hint += "--api-key"
        message = f"{where} refused the API key for {self.info.name} ({provider}): "
        return ModelError("auth", message + error.message, hint=hint)

    def _not_a_stream(self) -> str:
        where = f"the server at {self.api_base}" if self.api_base else f"{self.info.name}'s server"
        return (
            f"{where} did not answer with an OpenAI-compatible stream (an HTML page, a proxy, "
            "the wrong address?): check --api-base, which usually ends in /v1"
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[Delta]:
        """The reply's pieces, read and parsed on the background loop (`off_loop`), or made by
        the process of this run's calls (`call_process`)."""
        if call_process.running():
            await call_process.ready()
            if self._settle is not None:
                self.info, self._settle = self._settle(), None
            async for delta in call_process.stream(self.wire(), self._arguments(request)):
                yield delta
            return
        litellm = await _ready()
        if self._settle is not None:
            self.info, self._settle = self._settle(), None
        async for delta in relayed(lambda: self._deltas(litellm, request)):
            yield delta

    def _provider_name(self, litellm: ModuleType) -> str:
        """litellm's name for the model's provider: its prefix, or for a bare name its price map
        entry's ("" when neither tells; found once, without `get_llm_provider`, which prints)."""
        if self._provider is None:
            prefix, slash, _ = self.info.name.partition("/")
            known = litellm.model_cost.get(self.info.name) or {}
            self._provider = prefix if slash else str(known.get("litellm_provider", ""))
        return self._provider

    def wire(self) -> dict[str, Any]:
        """What `call_server` makes this model of (the info it asks for itself)."""
        return {
            "name": self.info.name,
            "api_base": self.api_base,
            "api_key": self.api_key,
            "key_source": self.key_source,
        }

    def _deltas(self, litellm: ModuleType, request: ModelRequest) -> AsyncIterator[Delta]:
        return self.streamed(litellm, self._arguments(request))

    async def streamed(
        self, litellm: ModuleType, arguments: dict[str, Any]
    ) -> AsyncIterator[Delta]:
        """The pieces of the reply to `litellm.acompletion(**arguments)`, errors classified."""
        try:
            with first_job_here(self._provider_name(litellm)):  # no round trip to a thread
                response = await litellm.acompletion(**arguments)
        except Exception as exc:
            raise self._explained(classify(exc)) from exc
        reason: StopReason | None = None
        usage: Usage | None = None
        said = False
        try:
            async for chunk in stream_end.chunks(response):
                if getattr(chunk, "usage", None):
                    usage = stream_end.our_usage(chunk.usage) or usage
                for choice in chunk.choices or []:
                    delta = choice.delta
                    said = said or bool(
                        getattr(delta, "reasoning_content", None)
                        or delta.content
                        or delta.tool_calls
                    )
                    thinking = getattr(delta, "reasoning_content", None)
                    if thinking:
                        yield ThinkingDelta(thinking)
                    if delta.content:
                        yield TextDelta(delta.content)
                    for call in delta.tool_calls or []:
                        function = call.function
                        yield ToolCallDelta(
                            index=call.index or 0,
                            id=call.id,
                            name=getattr(function, "name", None),
                            arguments=getattr(function, "arguments", None) or "",
                        )
                    if choice.finish_reason:
                        reason = stream_end.FINISH_REASONS.get(choice.finish_reason, "stop")
            if stream_end.ended_early(response):
                usage = stream_end.our_usage(stream_end.usage(response))
        except Exception as exc:
            if reason is None:
                raise self._explained(classify(exc)) from exc
            # Only the usage comes after the finish reason: litellm refused to read it (a
            # count such as 1.5). The reply stands; its cost is unknown.
            why = str(exc).strip().partition("\n")[0]
            log.warning("the server's usage could not be read (cost unknown): %s", why)
        finally:
            await response.aclose()
        if getattr(response, "received_finish_reason", "") is None:
            if not said and usage is None:  # not one `data:` event: litellm made up the end
                raise ModelError("other", self._not_a_stream())
            reason = None  # litellm made up a "stop" for a stream the provider never finished
        if reason is not None:
            yield Finish(reason, usage)


async def _warm_up_call() -> None:
    from litellm.llms.custom_httpx.async_client_cleanup import close_litellm_async_clients

    async with loopback_reply() as api_base:
        model = LitellmModel(ModelInfo("openai/warm-up"), api_base=api_base, api_key="warm-up")
        request = ModelRequest("warm up", [], tools=[WARM_UP_TOOL])
        try:
            async for _ in model._deltas(_litellm(), request):  # here: this loop's clients
                pass  # are dropped
        finally:
            await close_litellm_async_clients()  # type: ignore[no-untyped-call]  # untyped


def warm_up() -> None:
    """For a warm interpreter (`workbench.processes.forkserver`): what `preload` does, at once."""
    _prepare()
