"""Asking the provider to cache the prompt: breakpoints for Claude, a cache key for OpenAI.

Anthropic-family models (Anthropic, Bedrock, Vertex AI and OpenRouter Claude, and whatever litellm
says takes `cache_control`) cache only up to the breakpoints a request marks, at most four of
them. We mark three, in prompt order:

1. the end of the system prompt: with the tools before it (the provider's order is tools,
   system, messages), this prefix is the same on every call of a session and on every fork;
2. the previous user-side message (a user message or tool results): where the last call's
   breakpoint was, so this call reads what that one wrote even when a turn added many blocks;
3. the last user-side message: everything up to it is written for the next call to read.

What differs per workspace (the working folder of a fork's worktree) goes after breakpoint 1 as a
block of its own, so forks share the tools and system prompt cache. Nothing volatile comes before
it: the system prompt is byte-stable (`workbench.agent.system_prompt`).

OpenAI's models cache a long enough prefix by themselves; a stable `prompt_cache_key` (the session
id) routes a session's calls to the same cache (other providers that cache by themselves need
nothing, and a local OpenAI-compatible server gets no field it may refuse). The longer retention
is Anthropic's
one-hour `ttl` (cache writes cost more: litellm's `cache_creation_input_token_cost_above_1hr`) and
OpenAI's `prompt_cache_retention` of 24 hours.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Literal

CacheStyle = Literal["anthropic", "key"]
Retention = Literal["short", "long"]
RETENTIONS: tuple[str, ...] = ("short", "long")
MAX_BREAKPOINTS = 4
"""Anthropic's limit on `cache_control` blocks in one request."""
CLAUDE_HOSTS = ("anthropic", "bedrock", "bedrock_converse", "vertex_ai", "openrouter")
"""Providers whose Claude models take `cache_control` (litellm's own provider names)."""
KEY_HOSTS = ("openai", "azure")
"""Providers that take `prompt_cache_key`."""
USER_SIDE = ("user", "tool")


@dataclass(frozen=True)
class CachePolicy:
    """Whether to ask for caching (`cache` setting, `--no-cache`) and for how long
    (`cache_retention`); the key comes with each request (`ModelRequest.cache_key`)."""

    enabled: bool = True
    retention: Retention = "short"


def cache_style(
    name: str, provider: str, supported: tuple[str, ...] | list[str], caches: bool = False
) -> CacheStyle | None:
    """How `name` (litellm's `provider` for it, the OpenAI parameters litellm passes for it, and
    whether litellm's map says it caches prompts) is asked to cache; None when it is not. The
    cache key goes only to OpenAI's own models (OpenAI, Azure) that the map knows to cache: an
    OpenAI-compatible local server (`openai/NAME` with `--api-base`) might refuse a parameter it
    does not know."""
    params = list(supported)
    claude = "claude" in name.lower() and any(provider.startswith(h) for h in CLAUDE_HOSTS)
    if "cache_control" in params or claude:
        return "anthropic"
    if provider in KEY_HOSTS and caches and "prompt_cache_key" in params:
        return "key"
    return None


def control(policy: CachePolicy) -> dict[str, str]:
    """One breakpoint's `cache_control`."""
    marked = {"type": "ephemeral"}
    if policy.retention == "long":
        marked["ttl"] = "1h"
    return marked


def _mark(message: dict[str, Any], marked: dict[str, str]) -> dict[str, Any]:
    """`message` with a breakpoint at its end: a tool result carries it on the message (litellm
    puts it on the `tool_result` block), a user message on its last text block."""
    message = copy.copy(message)
    if message["role"] == "tool":
        message["cache_control"] = dict(marked)
        return message
    content = message.get("content")
    if isinstance(content, str) and content:  # Anthropic refuses an empty marked block
        message["content"] = [{"type": "text", "text": content, "cache_control": dict(marked)}]
    elif isinstance(content, list) and content:
        blocks = [dict(block) for block in content]
        blocks[-1]["cache_control"] = dict(marked)
        message["content"] = blocks
    return message


def with_breakpoints(
    messages: list[dict[str, Any]], suffix: str, policy: CachePolicy
) -> list[dict[str, Any]]:
    """OpenAI-format `messages` (system first, its content the stable prompt) with Anthropic
    breakpoints: the system prompt as a marked block followed by `suffix` unmarked, and the last
    two user-side messages marked (see the module docstring)."""
    marked = control(policy)
    system = messages[0]
    blocks: list[dict[str, Any]] = []
    if system["content"]:
        blocks.append({"type": "text", "text": system["content"], "cache_control": dict(marked)})
    if suffix:
        blocks.append({"type": "text", "text": suffix})
    result = [{**system, "content": blocks}, *messages[1:]]
    ends = [
        index
        for index in range(1, len(result))
        if result[index]["role"] in USER_SIDE
        and (index + 1 == len(result) or result[index + 1]["role"] not in USER_SIDE)
    ]
    for index in ends[-(MAX_BREAKPOINTS - 2) :]:
        result[index] = _mark(result[index], marked)
    return result


def key_arguments(
    policy: CachePolicy, key: str | None, supported: tuple[str, ...]
) -> dict[str, Any]:
    """`prompt_cache_key` (and the long retention) for providers that cache by themselves."""
    params = list(supported)
    arguments: dict[str, Any] = {}
    if key and "prompt_cache_key" in params:
        arguments["prompt_cache_key"] = key
    if policy.retention == "long" and "prompt_cache_retention" in params:
        arguments["prompt_cache_retention"] = "24h"
    return arguments
