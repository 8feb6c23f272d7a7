"""`scripted:PATH`: an offline model that plays a JSON file of turns, one per model call.

For tests and reproducible demos. The file is a list of turns, or an object with `turns`, optional
`summaries` (answers to side requests, in order: compaction, branch and merge summaries, commit
message drafts) and `context_window`. A turn:

    {"text": "...", "thinking": "...", "tool_calls": [{"name": "read", "arguments": {...}}],
     "usage": {"input_tokens": 10, "output_tokens": 5}, "finish": "stop" | "length",
     "delay_ms": 0, "error": "rate_limit"}

Text streams word by word (`delay_ms` between pieces); `error` fails that call with the given
kind before anything streams. When the turns run out the model answers "(script finished)".
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, get_args

from workbench.agent.models.client import (
    DEFAULT_CONTEXT_WINDOW,
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
from workbench.errors import WorkbenchError
from workbench.messages import Usage

FINISHED = "(script finished)"


def _load(path: Path) -> dict[str, Any]:
    hint = 'write a JSON list of turns, e.g. [{"text": "hello"}]'
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise WorkbenchError(f"script {path} does not exist", hint) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise WorkbenchError(f"cannot read script {path}: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise WorkbenchError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}", hint) from exc
    script = {"turns": data} if isinstance(data, list) else data
    turns = script.get("turns") if isinstance(script, dict) else None
    if not isinstance(turns, list) or not all(isinstance(t, dict) for t in turns):
        raise WorkbenchError(f"{path}: expected a list of turn objects", hint)
    for number, turn in enumerate(turns, start=1):
        for call in turn.get("tool_calls", []):
            if not isinstance(call, dict) or not isinstance(call.get("name"), str):
                raise WorkbenchError(f"{path}: turn {number}: each tool call needs a name", hint)
        if "error" in turn and turn["error"] not in get_args(ErrorKind):
            raise WorkbenchError(
                f"{path}: turn {number}: unknown error kind {turn['error']!r}",
                f"use one of {', '.join(get_args(ErrorKind))}",
            )
    return script


class ScriptedModel:
    """Plays the script's turns in order; side requests take the script's `summaries`."""

    def __init__(self, path: Path, name: str | None = None) -> None:
        """`name` is the model string the user gave (default `scripted:PATH`)."""
        script = _load(path)
        self.turns: list[dict[str, Any]] = script["turns"]
        self.summaries: list[str] = [str(s) for s in script.get("summaries", [])]
        window = int(script.get("context_window", DEFAULT_CONTEXT_WINDOW))
        self.info = ModelInfo(name=name or f"scripted:{path}", offline=True, context_window=window)
        self.calls = 0

    def _next(self, request: ModelRequest) -> dict[str, Any]:
        if request.purpose != "turn":
            return {"text": self.summaries.pop(0) if self.summaries else FINISHED}
        self.calls += 1
        return self.turns[self.calls - 1] if self.calls <= len(self.turns) else {"text": FINISHED}

    async def stream(self, request: ModelRequest) -> AsyncIterator[Delta]:
        turn = self._next(request)
        if "error" in turn:
            raise ModelError(turn["error"], f"scripted {turn['error']} error")
        delay = float(turn.get("delay_ms", 0)) / 1000
        if turn.get("thinking"):
            yield ThinkingDelta(str(turn["thinking"]))
        for piece in re.findall(r"\s*\S+\s*|\s+", str(turn.get("text", ""))):
            if delay:
                await asyncio.sleep(delay)
            yield TextDelta(piece)
        for index, call in enumerate(turn.get("tool_calls", [])):
            yield ToolCallDelta(
                index,
                id=call.get("id") or f"call_{self.calls}_{index}",
                name=call["name"],
                arguments=json.dumps(call.get("arguments", {})),
            )
        usage = turn.get("usage")
        yield Finish(
            reason=turn.get("finish", "stop"),
            usage=Usage.read(usage),
        )
