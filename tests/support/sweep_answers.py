"""The local model server's answers for a sweep's runs: each model writes `<model>.txt` (`ok`,
or `not ok` for a model named `bad`), then says it is done. A check such as
`grep -q '^ok' *.txt` then passes for one variant and fails for the other."""

from __future__ import annotations

from typing import Any

from support.openai_server import Reply

USAGE = {"prompt_tokens": 120, "completion_tokens": 30}


def writes_its_file(body: dict[str, Any], delay_s: float = 0.0) -> Reply:
    model = str(body["model"])
    if body["messages"][-1]["role"] == "tool":
        return Reply(text=f"{model} wrote it", usage=USAGE, delay_s=delay_s)
    content = "not ok\n" if model == "bad" else "ok\n"
    args = {"path": f"{model}.txt", "content": content}
    return Reply(tool_calls=[{"name": "write", "arguments": args}], usage=USAGE, delay_s=delay_s)


def slow(body: dict[str, Any]) -> Reply:
    """An answer that streams for about 20 seconds: a run that is still going when stopped."""
    return Reply(text="word " * 400, delay_s=0.05)


CHECK = "grep -q '^ok' *.txt && echo checked"
