"""What crosses between a cold run and the fork making its litellm calls (`call_process`) comes
out as it went in: every piece of a reply, and a classified error with its hint."""

from __future__ import annotations

import json

import pytest

from workbench.agent.models import call_process
from workbench.agent.models.client import (
    Finish,
    ModelError,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
)
from workbench.messages import Usage


@pytest.mark.parametrize(
    "delta",
    [
        TextDelta("héllo\n"),
        ThinkingDelta("hmm"),
        ToolCallDelta(index=1, id="call_1", name="read", arguments='{"path": "a"}'),
        ToolCallDelta(index=0, arguments="}"),
        Finish("tool_calls", Usage(input_tokens=3, output_tokens=2, cache_read_tokens=1)),
        Finish(None),
    ],
)
def test_a_piece_of_a_reply_crosses_unchanged(delta) -> None:
    line = json.dumps(call_process.encoded(delta))
    assert call_process.decoded(json.loads(line)) == delta


def test_a_classified_error_crosses_with_its_kind_wait_and_hint() -> None:
    error = ModelError("rate_limit", "slow down", retry_after=2.5, hint="wait a little")
    fields = json.loads(json.dumps(call_process.error_fields(error)))
    again = ModelError(**fields)
    assert (again.kind, again.message, again.retry_after, again.hint, again.retryable) == (
        "rate_limit",
        "slow down",
        2.5,
        "wait a little",
        True,
    )
