"""Our stdio transport's reading: lines kept whole up to the cap, a longer one dropped with an
error for the call it answers, a long line parsed apart to the same message."""

from __future__ import annotations

import json

import mcp_types as types

from workbench.mcp.stdio import CHUNK, EDGE, NOTICES, Lines, Notices, Oversize, dropped, parse


def feed(lines: Lines, data: bytes) -> list[bytes | Oversize]:
    """`data` fed in the pieces a pipe gives."""
    return [line for at in range(0, len(data), CHUNK) for line in lines.feed(data[at : at + CHUNK])]


def test_lines_come_whole_across_chunks_and_blank_ones_are_skipped() -> None:
    long = b'{"a": "' + b"x" * (3 * CHUNK) + b'"}'
    assert feed(Lines(cap=10 * CHUNK), b"one\n\n" + long + b"\n  \ntwo\nunfinished") == [
        b"one",
        long,
        b"two",
    ]


def test_a_line_over_the_cap_keeps_only_its_ends_and_the_next_line_is_whole() -> None:
    body = b'{"jsonrpc":"2.0","id":7,"result":{"text":"' + b"y" * (20 * 2**20) + b'"}}'
    lines = feed(Lines(cap=2**20), body + b'\n{"next": 1}\n')
    over, after = lines
    assert isinstance(over, Oversize) and over.size == len(body)
    assert len(over.head) == len(over.tail) == EDGE
    assert over.request_id() == 7
    assert after == b'{"next": 1}'


def test_the_request_id_is_read_from_either_end_and_never_from_inside() -> None:
    def ends(line: bytes) -> Oversize:
        return Oversize(len(line), line[:EDGE], line[-EDGE:])

    filler = b'"' + b"z" * 1000 + b'"'
    assert ends(b'{"id": "r-1", "result": ' + filler + b"}").request_id() == "r-1"
    assert ends(b'{"result": ' + filler + b', "id": 12, "jsonrpc": "2.0"}').request_id() == 12
    inside = b'{"result": {"id": 5, "text": ' + filler + b"}, " + b'"more": ' + filler + b"}"
    assert ends(inside).request_id() is None


def test_a_dropped_line_ends_the_call_it_answers_with_an_error_that_says_so() -> None:
    over = Oversize(100 * 2**20, b'{"jsonrpc":"2.0","id":3,"result":', b"}}")
    message = dropped(over, {2, 3}, cap=8 * 2**20)
    assert message is not None
    error = message.message
    assert isinstance(error, types.JSONRPCError) and error.id == 3
    assert "sent 100.0 MB in one message, over the 8.0 MB workbench reads" in error.error.message
    assert "dropped unread" in error.error.message


def test_without_an_id_only_a_single_waiting_call_gets_the_error() -> None:
    over = Oversize(9 * 2**20, b'{"result": {"text": "', b'"}}')
    alone = dropped(over, {4}, cap=8 * 2**20)
    assert alone is not None and getattr(alone.message, "id", None) == 4
    assert dropped(over, {4, 5}, cap=8 * 2**20) is None
    assert dropped(over, set(), cap=8 * 2**20) is None


async def test_a_flood_of_notifications_is_cut_to_the_seconds_count_and_answers_still_pass() -> (
    None
):
    notices = Notices()
    log = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"}}'
    answer = b'{"jsonrpc":"2.0","id":1,"result":{}}'
    request = b'{"method":"roots/list","jsonrpc":"2.0","id":"s1"}'
    passed = [notices.passes(log) for _ in range(10 * NOTICES)]
    assert sum(passed) == NOTICES and notices.dropped == 9 * NOTICES
    assert notices.passes(answer) and notices.passes(request)
    over = Oversize(9 * 2**20, log[:60], b"}}")
    assert dropped(over, {1}, cap=8 * 2**20) is None, "a notification answers no call"


async def test_a_long_line_parsed_apart_is_the_same_message() -> None:
    result = {"content": [{"type": "text", "text": "line\n" * 200_000}], "isError": False}
    line = json.dumps({"jsonrpc": "2.0", "id": 9, "result": result}).encode()
    parsed = await parse(line)
    assert not isinstance(parsed, Exception)
    assert parsed.message == types.JSONRPCResponse(jsonrpc="2.0", id=9, result=result)
    assert isinstance(await parse(line[:-1]), ValueError)
