"""The ACP connection's stdio stream: newline-delimited JSON-RPC, where a line that is not one
JSON-RPC object is answered with an error and the agent goes on serving.

The SDK (agent-client-protocol 0.12) parses each line and hands the value to its receive loop,
which expects an object: an array (a batch), a number or a string raised there and ended the
process with every open session, and `null` was read as the end of input. This stream stands in
for the SDK's own (`NdjsonTransport`, through its `Transport` seam), so only objects reach the
loop: invalid JSON gets a parse error (-32700), anything else an invalid-request error (-32600)
with id null, and each request of a batch an error under its own id (ACP has no batches).
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from acp import RequestError
from acp.task import MessageSender, TaskSupervisor

from workbench.modes.acp_early import next_line

log = logging.getLogger(__name__)
NOT_AN_OBJECT = "a JSON-RPC message is one JSON object per line; this was {kind}"
NO_BATCHES = "batches are not accepted: send each request on a line of its own"
ID_TYPES = (str, int, float, type(None))


def _error(message_id: Any, error: RequestError) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": message_id, "error": error.to_error_obj()}


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return "a string" if isinstance(value, str) else "a number"


def triage(line: bytes) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The message in `line` when it is an object, else the error responses it gets."""
    try:
        value = json.loads(line)
    except ValueError as exc:
        return None, [_error(None, RequestError.parse_error({"details": str(exc)}))]
    if isinstance(value, dict):
        if "id" in value and not isinstance(value["id"], ID_TYPES):
            reason = {"message": "a message id is a string, a number or null"}
            return None, [_error(None, RequestError.invalid_request(reason))]
        return value, []
    if isinstance(value, list):
        ids = [
            item["id"]
            for item in value
            if isinstance(item, dict)
            and "method" in item
            and isinstance(item.get("id", {}), ID_TYPES)
        ]
        error = RequestError.invalid_request({"message": NO_BATCHES})
        return None, [_error(i, error) for i in ids] or [_error(None, error)]
    error = RequestError.invalid_request({"message": NOT_AN_OBJECT.format(kind=_kind(value))})
    return None, [_error(None, error)]


class GuardedStdioStream:
    """An `acp` `Transport` over the stdio byte streams (see the module docstring)."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        pending: list[bytes] | None = None,
    ) -> None:
        self._reader = reader
        self._pending = list(pending or [])
        """Lines read from `reader` before the SDK came (`acp_early`): read first."""
        self._tasks = TaskSupervisor(source="workbench.acp_stream")
        self._sender = MessageSender(writer, self._tasks)

    async def send(self, message: dict[str, Any]) -> None:
        await self._sender.send(message)

    async def receive(self) -> dict[str, Any] | None:
        """The next object from the client; None at the end of input."""
        while True:
            line = self._pending.pop(0) if self._pending else await next_line(self._reader)
            if not line:
                return None
            if not line.strip():
                continue
            message, answers = triage(line)
            if message is not None:
                return message
            log.warning("answered a malformed ACP message: %.200r", line)
            for answer in answers:
                await self.send(answer)

    async def close(self) -> None:
        await self._sender.close()
        await self._tasks.shutdown()
