"""The OpenAI SDK's chat request body sent as it is when it is plain JSON.

Before it sends a chat completion (litellm's path to OpenAI-compatible servers), the SDK walks
the body against its parameter types (`openai._utils._transform`), each message against every
type of the message union: about 0.45 ms a message on this machine, 65 ms a request at 150
messages, all of it between a tool's result and the next request. The walk renames fields that
have an alias, formats dates and files, dumps pydantic models and drops the omitted parameters.
No chat parameter has an alias or a format, so for a body of plain JSON (what litellm builds) it
gives back the body it was given, less the omitted parameters. `install` has the chat resource
do just that for such a body and leaves any other body to the SDK (a test compares the two on
real requests, so an SDK that changes this fails it).
"""

from __future__ import annotations

from typing import Any


def plain(data: object) -> bool:
    """Whether `data` is JSON: dicts with string keys, lists, strings, numbers, booleans, None."""
    pending = [data]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            if not all(isinstance(key, str) for key in item):
                return False
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
        elif item is not None and not isinstance(item, (str, int, float)):  # a bool is an int
            return False
    return True


def install() -> None:
    """The chat resource's request transform skips a plain body (called once, after the SDK's
    import)."""
    from openai._utils import is_given
    from openai.resources.chat.completions import completions
    from openai.types.chat import completion_create_params as params

    names = vars(completions)  # the name `create` calls, looked up there at each call
    walk = names["async_maybe_transform"]
    chat = (params.CompletionCreateParamsStreaming, params.CompletionCreateParamsNonStreaming)

    async def transform(data: Any, expected_type: Any) -> Any:
        if expected_type in chat and isinstance(data, dict):
            given = {key: value for key, value in data.items() if is_given(value)}
            if plain(given):
                return given
        return await walk(data, expected_type)

    names["async_maybe_transform"] = transform
