"""Which recorded model a reopened session uses, and when the user is asked first."""

from __future__ import annotations

import asyncio
from pathlib import Path

from workbench.messages import Message
from workbench.runtime.model.session_model import RecordedModel, model_to_reopen, recorded_models
from workbench.runtime.options import WorkbenchOptions

URL = "http://10.0.0.7:8000/v1"


def reply(name: str, api_base: str | None = None) -> Message:
    record = {"name": name, **({"api_base": api_base} if api_base else {})}
    return Message(role="assistant", text="ok", details={"model": record})


HISTORY = [reply("demo"), Message(role="user", text="hi"), reply("openai/x", URL)]


def reopen(pulled_from: str = "", answer: bool | None = None, **flags: str) -> RecordedModel | None:
    asked: list[str] = []

    async def confirm(title: str, text: str) -> bool:
        asked.append(text)
        assert answer is not None
        return answer

    options = WorkbenchOptions(cwd=Path(), **flags)  # type: ignore[arg-type]
    chosen = asyncio.run(
        model_to_reopen(options, HISTORY, pulled_from, None if answer is None else confirm)
    )
    assert bool(asked) == (answer is not None and bool(pulled_from))
    return chosen


def test_the_latest_model_comes_first_and_each_once() -> None:
    assert recorded_models([*HISTORY, reply("demo")]) == [
        RecordedModel("demo"),
        RecordedModel("openai/x", URL),
    ]


def test_a_session_made_here_reopens_with_its_model_and_endpoint_unless_a_flag_says_otherwise():
    assert reopen() == RecordedModel("openai/x", URL)
    assert reopen(model="demo") is None, "--model wins"
    assert reopen(api_base="http://mine/v1") == RecordedModel("openai/x", "http://mine/v1")


def test_a_pulled_sessions_endpoint_is_used_only_after_a_yes() -> None:
    assert reopen("origin", answer=True) == RecordedModel("openai/x", URL)
    assert reopen("origin", answer=False) == RecordedModel("openai/x"), "the user's own endpoint"
