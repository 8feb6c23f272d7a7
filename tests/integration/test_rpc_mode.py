"""`workbench --mode rpc` driven as a user's script would: a real process, JSON lines both ways."""

from __future__ import annotations

from support.openai_server import Reply
from support.processes import wait_group_gone
from support.workbench_process import write_script, write_settings

SKIPPED = "Skipped due to queued user message."


def server_model(server) -> tuple[str, ...]:
    return ("--model", "openai/test-model", "--api-base", server.url, "--api-key", "test-key")


def bash_call(command: str, call_id: str) -> dict:
    return {"name": "bash", "arguments": {"command": command}, "id": call_id}


def test_steering_skips_the_rest_and_the_model_hears_it_next(project, server, rpc_process):
    server.add(
        Reply(
            text="Running three commands.",
            tool_calls=[
                bash_call("sleep 1; echo one", "c1"),
                bash_call("echo two", "c2"),
                bash_call("echo three", "c3"),
            ],
        ),
        Reply(text="Understood, switching."),
    )
    rpc = rpc_process(*server_model(server), cwd=project)
    rpc.send(type="prompt", text="run them", id="p1")
    rpc.wait_type("tool_execution_start", tool_call_id="c1")
    rpc.send(type="steer", text="stop and use the other script", id="s1")
    queued = rpc.wait_type("queue_update")
    assert queued["steering"] == ["stop and use the other script"]
    end = rpc.wait_type("agent_end")
    assert end["stop_reason"] == "completed"

    ends = [e for e in rpc.events if e["type"] == "tool_execution_end"]
    assert [(e["tool_call_id"], e["skipped"]) for e in ends] == [
        ("c1", False),
        ("c2", True),
        ("c3", True),
    ]
    assert [e["result"]["text"] for e in ends[1:]] == [SKIPPED, SKIPPED]

    sent = server.requests[1]["messages"]
    roles = [m["role"] for m in sent]
    assert roles == ["system", "user", "assistant", "tool", "tool", "tool", "user"]
    assert sent[3]["content"] == "one\n\nExit code: 0"
    assert [m["content"] for m in sent[4:6]] == [SKIPPED, SKIPPED]
    assert [m["tool_call_id"] for m in sent[3:6]] == ["c1", "c2", "c3"]
    assert sent[6]["content"] == "stop and use the other script"
    assert rpc.close() == 0


def test_follow_up_waits_for_the_agent_to_finish(project, rpc_process):
    model = write_script(
        project,
        [
            {"tool_calls": [bash_call("sleep 0.5; echo a", "c1"), bash_call("echo b", "c2")]},
            {"text": "first answer"},
            {"text": "second answer"},
        ],
    )
    rpc = rpc_process("--model", model, cwd=project)
    rpc.send(type="prompt", text="go")
    rpc.wait_type("tool_execution_start", tool_call_id="c1")
    rpc.send(type="follow_up", text="now tidy up")
    assert rpc.wait_type("queue_update")["follow_up"] == ["now tidy up"]
    rpc.wait_type("agent_end", stop_reason="completed")
    finished = [
        (e["message"]["role"], e["message"]["text"])
        for e in rpc.events
        if e["type"] == "message_end" and e["message"]["role"] != "tool_result"
    ]
    assert finished == [
        ("user", "go"),
        ("assistant", ""),
        ("assistant", "first answer"),
        ("user", "now tidy up"),
        ("assistant", "second answer"),
    ]
    assert not any(e.get("skipped") for e in rpc.events if e["type"] == "tool_execution_end")
    assert [e["type"] for e in rpc.events].count("agent_end") == 1


def test_all_mode_delivers_every_queued_steering_message_at_once(project, server, rpc_process):
    write_settings(project, {"queue": {"steering_mode": "all"}})
    server.add(
        Reply(tool_calls=[bash_call("sleep 1", "c1"), bash_call("echo never", "c2")]),
        Reply(text="ok"),
    )
    rpc = rpc_process(*server_model(server), cwd=project)
    rpc.send(type="prompt", text="go")
    rpc.wait_type("tool_execution_start", tool_call_id="c1")
    rpc.send(type="steer", text="first")
    rpc.send(type="steer", text="second")
    rpc.wait_type("agent_end")
    assert [m["content"] for m in server.requests[1]["messages"][-2:]] == ["first", "second"]
    assert len(server.requests) == 2


def test_prompt_while_busy_is_refused_and_queues_can_be_edited(project, rpc_process):
    model = write_script(project, [{"tool_calls": [bash_call("sleep 1", "c1")]}, {"text": "ok"}])
    rpc = rpc_process("--model", model, cwd=project)
    rpc.send(type="prompt", text="go")
    rpc.wait_type("tool_execution_start")
    rpc.send(type="prompt", text="another", id=7)
    refused = rpc.wait_type("response", id=7)
    assert refused["success"] is False
    assert "steer" in refused["hint"] and "follow_up" in refused["hint"]
    rpc.send(type="follow_up", text="typo")
    rpc.send(type="edit_queue", queue="follow_up", index=0, text="fixed", id=8)
    assert rpc.wait_type("response", id=8)["success"] is True
    rpc.send(type="get_queue", id=9)
    assert rpc.wait_type("response", id=9)["data"] == {"steering": [], "follow_up": ["fixed"]}
    rpc.send(type="clear_queue", id=10)
    rpc.wait_type("response", id=10)
    rpc.wait_type("agent_end")
    delivered = [e["message"]["text"] for e in rpc.events if e["type"] == "message_end"]
    assert "fixed" not in delivered


def test_abort_during_a_stream_closes_the_connection(project, server, rpc_process):
    server.add(Reply(text=" ".join(f"word{n}" for n in range(100)), delay_s=0.1))
    rpc = rpc_process(*server_model(server), cwd=project)
    rpc.send(type="prompt", text="talk")
    rpc.wait_type("message_update")
    rpc.send(type="abort", id="a")
    end = rpc.wait_type("agent_end")
    assert end["stop_reason"] == "aborted"
    assert rpc.wait_type("response", id="a")["success"] is True
    assert server.wait_for_disconnects(1), "the HTTP stream was not closed"
    last = [e for e in rpc.events if e["type"] == "message_end"][-1]["message"]
    assert last["stop_reason"] == "aborted" and last["text"].startswith("word0")
    turn_end = [e for e in rpc.events if e["type"] == "turn_end"][-1]
    assert turn_end["message"]["id"] == last["id"] and turn_end["tool_results"] == []
    rpc.send(type="get_state", id="s")
    state = rpc.wait_type("response", id="s")["data"]
    assert state["busy"] is False and state["message_count"] == 2


def test_abort_during_bash_leaves_no_process_behind(project, rpc_process):
    command = "echo $$ > pgid; sleep 60 & sleep 60 & echo started; wait"
    model = write_script(project, [{"tool_calls": [bash_call(command, "c1")]}])
    rpc = rpc_process("--model", model, cwd=project)
    rpc.send(type="prompt", text="run it")
    rpc.wait_type("tool_execution_update")
    pgid = int((project / "pgid").read_text())
    rpc.send(type="abort")
    assert rpc.wait_type("agent_end")["stop_reason"] == "aborted"
    assert wait_group_gone(pgid) == []
    result = [e for e in rpc.events if e["type"] == "tool_execution_end"][-1]["result"]
    assert result == {"text": "Aborted by the user while running.", "is_error": True, "details": {}}
    *_, turn_end, agent_end = [e for e in rpc.events if e["type"] != "response"]
    assert (turn_end["type"], agent_end["type"]) == ("turn_end", "agent_end"), "the turn is closed"
    assert [c["id"] for c in turn_end["message"]["tool_calls"]] == ["c1"]
    assert [r["text"] for r in turn_end["tool_results"]] == ["Aborted by the user while running."]


def test_malformed_commands_get_errors_and_the_process_goes_on(project, rpc_process):
    model = write_script(project, [{"text": "still here"}])
    rpc = rpc_process("--model", model, cwd=project)
    rpc.send_raw("{not json")
    rpc.send_raw("[1, 2]")
    rpc.send(type="launch")
    rpc.send(type="prompt")
    errors = [rpc.wait_type("error") for _ in range(4)]
    assert [e["message"] for e in errors] == [
        "not JSON: Expecting property name enclosed in double quotes at column 2",
        "a command must be a JSON object",
        "unknown command type 'launch'",
        "command 'prompt' needs 'text' as str",
    ]
    rpc.send(type="prompt", text="hello")
    reply = rpc.wait_for(
        lambda e: e["type"] == "message_end" and e["message"]["role"] == "assistant"
    )
    assert reply["message"]["text"] == "still here"
    assert rpc.close() == 0


def test_session_header_and_state(project, rpc_process):
    model = write_script(project, [])
    rpc = rpc_process("--model", model, "--tools", "read,bash", cwd=project)
    assert rpc.header["type"] == "session"
    assert rpc.header["model"] == model and rpc.header["offline"] is True
    assert rpc.header["cwd"] == str(project.resolve()) and rpc.header["branch"] == "main"
    rpc.send(type="get_state", id=1)
    state = rpc.wait_type("response", id=1)["data"]
    assert state["tools"] == ["read", "bash"], "--tools names every tool offered"
    assert "skill-graph-status" in state["commands"], "the enforcer is registered"
    assert state["session_id"] == rpc.header["id"]
    assert state["total_cost"] == 0.0
    assert "compact" in state["commands"]


def test_closing_stdin_lets_the_run_finish(project, rpc_process):
    model = write_script(project, [{"text": "slow words here", "delay_ms": 100}])
    rpc = rpc_process("--model", model, cwd=project)
    rpc.send(type="prompt", text="go")
    rpc.process.stdin.close()
    assert rpc.wait_type("agent_end")["stop_reason"] == "completed"
    assert rpc.process.wait(timeout=10) == 0
