"""What leaves our message model: the OpenAI format, event JSON, and offline model scripts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.agent.events import MessageEnd, ToolExecutionEnd
from workbench.agent.models.choice import model_name
from workbench.agent.models.client import AssistantAssembler, Finish, TextDelta, ToolCallDelta
from workbench.agent.models.openai_format import (
    COMPACTION_PREFIX,
    NOTICE_PREFIX,
    UNANSWERED,
    to_openai,
)
from workbench.agent.models.scripted import ScriptedModel
from workbench.config import Settings
from workbench.errors import WorkbenchError
from workbench.messages import Message, ToolCall
from workbench.tool import ToolResult


def test_conversion_keeps_every_call_answered_and_drops_empty_replies() -> None:
    calls = [ToolCall("a", "read", {"path": "x"}), ToolCall("b", "bash", {"command": "ls"})]
    messages = [
        Message(role="compaction", text="summary"),
        Message(role="user", text="go"),
        Message(role="assistant", text="", tool_calls=calls),
        Message(role="tool_result", text="x body", tool_call_id="a", tool_name="read"),
        Message(role="notice", text="careful"),
        Message(role="assistant", text="", stop_reason="aborted"),
    ]
    assert to_openai("sys", messages) == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": COMPACTION_PREFIX + "summary"},
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "a",
                    "type": "function",
                    "function": {"name": "read", "arguments": '{"path": "x"}'},
                },
                {
                    "id": "b",
                    "type": "function",
                    "function": {"name": "bash", "arguments": '{"command": "ls"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "a", "content": "x body"},
        {"role": "tool", "tool_call_id": "b", "content": UNANSWERED},
        {"role": "user", "content": NOTICE_PREFIX + "careful"},
    ]


def test_assembler_joins_fragments_by_index_and_derives_the_finish() -> None:
    assembler = AssistantAssembler()
    for delta in [
        TextDelta("Reading "),
        ToolCallDelta(1, id="c2", name="bash", arguments='{"comm'),
        ToolCallDelta(0, id="c1", name="read", arguments='{"pa'),
        ToolCallDelta(0, arguments='th": "a"}'),
        ToolCallDelta(1, arguments='and": 1'),
        Finish("stop"),
    ]:
        assembler.add(delta)
    message = assembler.complete()
    assert [(c.id, c.name, c.arguments) for c in message.tool_calls] == [
        ("c1", "read", {"path": "a"}),
        ("c2", "bash", {}),
    ]
    assert message.stop_reason == "tool_calls", "a reply with calls stopped to call tools"
    assert message.details["invalid_arguments"]["c2"].startswith("arguments are not valid JSON")


def test_events_serialise_with_stable_snake_case_fields() -> None:
    message = Message(role="assistant", text="hi", stop_reason="stop")
    data = MessageEnd(message).to_dict()
    assert data["type"] == "message_end"
    assert {
        "id",
        "role",
        "text",
        "tool_calls",
        "tool_call_id",
        "is_error",
        "usage",
        "stop_reason",
    } <= set(data["message"])
    end = ToolExecutionEnd("c1", "read", {"path": "a"}, ToolResult("body"), 1.5).to_dict()
    assert end == {
        "type": "tool_execution_end",
        "tool_call_id": "c1",
        "tool_name": "read",
        "args": {"path": "a"},
        "result": {"text": "body", "is_error": False, "details": {}},
        "duration_ms": 1.5,
        "skipped": False,
    }
    json.dumps(data)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{oops", "invalid JSON"),
        ('{"turns": 3}', "expected a list of turn objects"),
        ('[{"tool_calls": [{"arguments": {}}]}]', "each tool call needs a name"),
        ('[{"error": "gremlins"}]', "unknown error kind"),
    ],
)
def test_bad_scripts_are_clear_errors(tmp_path: Path, content: str, message: str) -> None:
    (tmp_path / "s.json").write_text(content)
    with pytest.raises(WorkbenchError, match=message):
        ScriptedModel(tmp_path / "s.json")


def test_model_choice_order(tmp_path: Path) -> None:
    settings = Settings(tmp_path, {"model": "from-settings"})
    empty = Settings(tmp_path, {})
    assert model_name("cli", settings, {"WORKBENCH_MODEL": "env"}) == "cli"
    assert model_name(None, settings, {"WORKBENCH_MODEL": "env"}) == "env"
    assert model_name(None, settings, {}) == "from-settings"
    assert model_name(None, empty, {"OPENAI_API_KEY": "k"}) == "gpt-4.1"
    assert model_name(None, empty, {}) == "demo"
