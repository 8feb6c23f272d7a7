"""What crosses between a cold run and the fork making its litellm calls (`call_process`) comes
out as it went in: every piece of a reply, and a classified error with its hint."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias

import pytest

from workbench.agent.models import call_process
from workbench.agent.models.client import (
    Delta,
    Finish,
    ModelError,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
)
from workbench.messages import Usage

Received: TypeAlias = tuple[list[Delta], ModelError | None]


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


def serve_once(control: socket.socket, said: list[dict[str, Any]]) -> None:
    """The fork's side of one call, played by a thread: take the call's socket, read the
    request, and write all of `said` at once, as a fork ahead of a busy app has."""
    _, fds, _, _ = socket.recv_fds(control, 1, 1)
    with socket.socket(fileno=fds[0]) as call, call.makefile("rb") as request:
        request.readline()
        call.sendall(b"".join(json.dumps(line).encode() + b"\n" for line in said))


@pytest.fixture
def received(monkeypatch: pytest.MonkeyPatch) -> Callable[..., Awaitable[Received]]:
    """What the stream of one call gives when the call process sends all of `said` at once."""

    async def stream(said: list[dict[str, Any]]) -> Received:
        ours, theirs = socket.socketpair()
        server = threading.Thread(target=serve_once, args=(theirs, said))
        server.start()
        monkeypatch.setattr(call_process, "_control", ours)
        pieces: list[Delta] = []
        try:
            async for piece in call_process.stream({}, {}):
                pieces.append(piece)
        except ModelError as error:
            return pieces, error
        finally:
            server.join()
            ours.close()
            theirs.close()
        return pieces, None

    return stream


def delta(piece: Delta) -> dict[str, Any]:
    return {"delta": call_process.encoded(piece)}


async def test_pieces_that_arrive_together_come_out_joined_in_order(received) -> None:
    said = [
        delta(TextDelta("Let me ")),
        delta(TextDelta("look.")),
        delta(ToolCallDelta(index=0, id="c1", name="read", arguments='{"pa')),
        delta(ToolCallDelta(index=0, arguments='th": "a"}')),
        delta(ThinkingDelta("so ")),
        delta(ThinkingDelta("then")),
        delta(TextDelta("Done.")),
        delta(Finish("stop")),
        {"end": True},
    ]
    pieces, error = await received(said)
    assert error is None
    assert pieces == [
        TextDelta("Let me look."),
        ToolCallDelta(index=0, id="c1", name="read", arguments='{"pa'),
        ToolCallDelta(index=0, arguments='th": "a"}'),
        ThinkingDelta("so then"),
        TextDelta("Done."),
        Finish("stop"),
    ]


async def test_the_pieces_before_an_error_are_all_delivered_before_it(received) -> None:
    error = ModelError("connection", "reset by peer")
    said = [delta(TextDelta("half ")), delta(TextDelta("a reply"))]
    pieces, raised = await received([*said, {"error": call_process.error_fields(error)}])
    assert pieces == [TextDelta("half a reply")]
    assert raised is not None and (raised.kind, raised.message) == ("connection", "reset by peer")


async def test_a_piece_longer_than_a_read_crosses_whole(received) -> None:
    arguments = '{"path": "big.txt", "content": "' + "x" * (3 * call_process.READ_SIZE) + '"}'
    call = ToolCallDelta(index=0, id="c1", name="write", arguments=arguments)
    pieces, error = await received([delta(call), delta(Finish("tool_calls")), {"end": True}])
    assert error is None
    assert pieces == [call, Finish("tool_calls")]
