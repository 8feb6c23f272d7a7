"""Our messages in the OpenAI chat format, which litellm accepts for every provider.

The only place messages leave our own model. Notices and summaries become user messages the model
can tell apart; failed or aborted replies with nothing in them are left out (providers refuse empty
assistant messages); every tool call is answered, so a provider never sees a dangling call.
"""

from __future__ import annotations

import json
from typing import Any

from workbench.messages import Message

COMPACTION_PREFIX = (
    "The earlier part of this conversation was compacted. This summary stands in for it:\n\n"
)
BRANCH_PREFIX = "This conversation returned from another branch, summarised here:\n\n"
NOTICE_PREFIX = "[workbench notice]\n"
UNANSWERED = (
    "No result was recorded: the session stopped while this call was pending or running, so it "
    "may or may not have run (a command may even have finished). Check its effects before "
    "running it again."
)
"""What the model reads for a call without a result: the truth is that nobody knows."""


def _assistant(message: Message) -> dict[str, Any] | None:
    if not message.text and not message.tool_calls:
        return None
    converted: dict[str, Any] = {"role": "assistant", "content": message.text or None}
    if message.tool_calls:
        converted["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
            }
            for call in message.tool_calls
        ]
    return converted


def _user_side(message: Message) -> dict[str, Any]:
    prefix = {
        "compaction": COMPACTION_PREFIX,
        "branch_summary": BRANCH_PREFIX,
        "notice": NOTICE_PREFIX,
    }.get(message.role, "")
    return {"role": "user", "content": prefix + message.text}


def to_openai(system_prompt: str, messages: list[Message]) -> list[dict[str, Any]]:
    """The request's `messages`: the system prompt, then the conversation."""
    converted: list[dict[str, Any]] = [{"role": "system", "content": system_prompt}]
    open_calls: list[str] = []

    def close_calls() -> None:
        for call_id in open_calls:
            converted.append({"role": "tool", "tool_call_id": call_id, "content": UNANSWERED})
        open_calls.clear()

    for message in messages:
        if message.role == "tool_result":
            if message.tool_call_id in open_calls:
                open_calls.remove(message.tool_call_id)
                converted.append(
                    {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.text}
                )
            continue
        close_calls()
        if message.role == "assistant":
            assistant = _assistant(message)
            if assistant is not None:
                converted.append(assistant)
                open_calls.extend(call.id for call in message.tool_calls)
        else:
            converted.append(_user_side(message))
    close_calls()
    return converted
