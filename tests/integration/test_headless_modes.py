"""`workbench -p` and `--mode json` as real processes: stdout, stderr and the exit code."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from support.openai_server import Raw, Reply
from support.processes import wait_group_gone
from support.skill_trees import write_tree
from support.workbench_process import (
    REPO,
    run_workbench,
    workbench_command,
    write_script,
    write_user_settings,
)

from workbench.config import agent_dir


def test_print_mode_prints_only_the_final_answer(project):
    (project / "notes.txt").write_text("alpha\n")
    model = write_script(
        project,
        [
            {
                "text": "Let me look.",
                "tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}],
            },
            {"text": "The notes say alpha."},
        ],
    )
    done = run_workbench("-p", "--model", model, "what do the notes say?", cwd=project)
    assert (done.returncode, done.stdout, done.stderr) == (0, "The notes say alpha.\n", "")


def test_the_prompt_can_come_on_stdin(project):
    model = write_script(project, [{"text": "got it"}])
    done = run_workbench("-p", "--model", model, cwd=project, stdin="a long prompt\nover lines\n")
    assert (done.returncode, done.stdout) == (0, "got it\n")


def test_a_failed_run_reports_on_stderr_and_exits_1(project):
    model = write_script(project, [{"error": "auth"}])
    done = run_workbench("-p", "--model", model, "hi", cwd=project)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == "workbench: scripted auth error\n"


def test_bad_start_up_input_is_one_clear_line(project):
    missing = run_workbench("-p", "--model", "scripted:nope.json", "hi", cwd=project)
    assert missing.returncode == 1
    assert missing.stderr.startswith(f"workbench: script {project / 'nope.json'} does not exist")
    no_prompt = run_workbench("-p", "--model", "demo", cwd=project, stdin="")
    assert no_prompt.returncode == 2 and "no prompt given" in no_prompt.stderr
    tools = run_workbench("-p", "--tools", "read,fly", "hi", cwd=project)
    assert tools.returncode == 2 and "unknown tool fly" in tools.stderr
    no_key = run_workbench("-p", "--api-key-file", "missing-key", "hi", cwd=project)
    assert no_key.returncode == 2
    assert no_key.stderr.startswith("workbench: cannot read the API key file missing-key")
    both = run_workbench("-p", "--api-key", "k", "--api-key-file", "f", "hi", cwd=project)
    assert both.returncode == 2 and "--api-key or --api-key-file, not both" in both.stderr
    interactive = run_workbench("just a prompt", cwd=project)
    assert interactive.returncode == 2 and "add -p" in interactive.stderr


def test_json_mode_prints_a_session_header_then_every_event(project):
    model = write_script(project, [{"text": "hello there"}])
    done = run_workbench("--mode", "json", "--model", model, "hi", cwd=project)
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    header = lines[0]
    assert header["type"] == "session" and set(header) == {
        "type",
        "id",
        "branch",
        "model",
        "offline",
        "cwd",
    }
    assert (header["model"], header["branch"], header["cwd"]) == (model, "main", str(project))
    kinds = [line["type"] for line in lines[1:]]
    assert kinds[0] == "agent_start" and kinds[-1] == "agent_end"
    texts = [e["delta"] for e in lines if e["type"] == "message_update"]
    assert "".join(texts) == "hello there"
    assert done.returncode == 0


def test_sigterm_aborts_the_run_and_kills_bash(project):
    command = "echo $$ > pgid; sleep 60 & sleep 60"
    model = write_script(
        project, [{"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}]
    )
    process = subprocess.Popen(
        workbench_command("--mode", "json", "--model", model, "go"),
        cwd=project,
        stdout=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    deadline = time.monotonic() + 15
    while not (project / "pgid").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.1)
    pgid = int((project / "pgid").read_text())
    process.send_signal(signal.SIGTERM)
    out, _ = process.communicate(timeout=15)
    assert process.returncode == 128 + signal.SIGTERM
    assert json.loads(out.splitlines()[-1])["stop_reason"] == "aborted"
    assert wait_group_gone(pgid) == []


def test_demo_is_the_default_without_a_model_or_key(tmp_path):
    done = run_workbench("-p", "--no-session", "ship a change through review", cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("(offline demo)")
    assert "`compound-ship-change`" in done.stdout
    assert "--model" in done.stdout


RUN_THEN_TELL_LITELLM = (
    "import sys; from workbench.cli import main; code = main(sys.argv[1:]); "
    "print('litellm imported here:', 'litellm' in sys.modules, file=sys.stderr); sys.exit(code)"
)
"""`workbench ARGS`, then whether litellm was imported in the run's own process."""


def test_a_model_string_reads_then_answers_through_litellm(project, server):
    (project / "AGENTS.md").write_text("Always answer in English.\n")
    (project / "data.txt").write_text("the answer is 42\n")
    server.add(
        Reply(tool_calls=[{"name": "read", "arguments": {"path": "data.txt"}}]),
        Reply(text="It is 42."),
    )
    model = ["--model", "openai/local", "--api-base", server.url, "--api-key", "k"]
    prompt = ["--append-system-prompt", "Be brief.", "what is the answer?"]
    done = subprocess.run(
        [sys.executable, "-c", RUN_THEN_TELL_LITELLM, "-p", *model, *prompt],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout) == (0, "It is 42.\n"), done.stderr
    # a cold run's calls are made by a fork that imports litellm on the other core while the
    # run opens its session (`call_process`): the run's own process never imports it
    assert done.stderr.endswith("litellm imported here: False\n"), done.stderr
    system = server.requests[0]["messages"][0]["content"]
    assert "Always answer in English." in system
    assert system.endswith(f"Be brief.\n\nWorking folder: {project}\n"), "the folder comes last"
    assert server.requests[1]["messages"][-1]["content"] == "the answer is 42"


def test_the_enforcer_watches_headless_runs_and_its_events_are_printed(tmp_path):
    done = run_workbench(
        "--mode", "json", "--no-session", "--model", "demo", "ship a change", cwd=REPO
    )
    loads = [json.loads(line) for line in done.stdout.splitlines() if '"skill_load"' in line]
    loads = [e for e in loads if e["type"] == "skill_load"]
    assert [(e["layer"], e["verdict"]) for e in loads][:3] == [
        ("compound", "ok"),
        ("molecule", "ok"),
        ("atom", "ok"),
    ]
    assert done.returncode == 0 and done.stderr == ""


def offered(request: dict) -> list[str]:
    return [tool["function"]["name"] for tool in request.get("tools", [])]


def test_tools_is_an_exact_allowlist_of_every_tool_offered(project, server):
    extensions = agent_dir() / "extensions"
    extensions.mkdir(parents=True)
    (extensions / "shout.py").write_text(
        "from workbench.tool import Tool, ToolResult\n"
        "def register(api):\n"
        "    async def shout(args, ctx):\n"
        "        return ToolResult('HI')\n"
        "    api.register_tool(Tool('shout', 'shout', {'type': 'object'}, shout))\n"
    )
    model = ("--model", "openai/test-model", "--api-base", server.url, "--api-key", "k")
    activate = {"name": "skill_activate", "arguments": {"name": "x"}}
    server.add(Reply(tool_calls=[activate]), Reply(text="only reading"))
    done = run_workbench("-p", "--no-session", *model, "--tools", "read", "go", cwd=project)
    assert (done.returncode, done.stdout) == (0, "only reading\n"), done.stderr
    assert offered(server.requests[0]) == ["read"]
    refused = server.requests[1]["messages"][-1]["content"]
    assert refused == "Unknown tool 'skill_activate'. Available tools: read."

    server.add(Reply(text="listed"))
    skill = project / ".pi" / "skills" / "greet"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: greet\ndescription: Says hello.\n---\nSay hi.\n")
    chosen = "read,skill_activate,prime_query,shout"
    done = run_workbench("-p", "--no-session", *model, "--tools", chosen, "go", cwd=project)
    assert done.returncode == 0, done.stderr
    # prime_query has nothing to add while the prompt lists every skill: it is not offered
    assert offered(server.requests[2]) == ["read", "skill_activate", "shout"]

    wrong = run_workbench(
        "-p", "--no-session", *model, "--tools", "read,skill_actvate", "go", cwd=project
    )
    assert wrong.returncode == 2 and len(server.requests) == 3, "no model call was made"
    assert wrong.stderr.startswith("workbench: unknown tool skill_actvate\n  hint: the tools are ")
    assert "skill_activate, skill_deactivate, prime_query, shout" in wrong.stderr


def test_the_skills_section_names_only_the_enforcer_tools_the_model_has(project, server):
    skill_project(project)
    model = ("--model", "openai/test-model", "--api-base", server.url, "--api-key", "k")
    server.add(Reply(text="a"), Reply(text="b"))
    for tools in ("read", "read,skill_activate"):
        done = run_workbench("-p", "--no-session", *model, "--tools", tools, "go", cwd=project)
        assert done.returncode == 0, done.stderr
    without, with_it = (request["messages"][0]["content"] for request in server.requests)
    assert "## Skill graph" in without and "skill_activate" not in without
    assert "reading its SKILL.md with the read tool, or call skill_activate(name)." in with_it


def skill_project(project, mode: str = "warn"):
    write_tree(project / ".pi" / "skills")
    (project / ".pi" / "settings.json").write_text(json.dumps({"enforcer": {"mode": mode}}))
    return write_script(project, [{"text": "drafted"}])


def test_a_refused_or_unknown_skill_command_is_told_and_exits_1(project):
    model = skill_project(project, mode="block")
    unknown = run_workbench(
        "-p", "--no-session", "--model", model, "/skill:nonexistent go", cwd=project
    )
    assert (unknown.returncode, unknown.stdout) == (1, "")
    assert unknown.stderr.startswith(
        "workbench: skill load refused: There is no skill named `nonexistent`.\n  hint: "
    )
    blocked = run_workbench(
        "-p", "--no-session", "--model", model, "/skill:write-draft go", cwd=project
    )
    assert (blocked.returncode, blocked.stdout) == (1, "")
    assert blocked.stderr.startswith(
        "workbench: skill load refused: The molecule `write-draft` was loaded without a compound"
    )
    assert "\n  hint: Load the compound first: `publish-report`" in blocked.stderr
    as_json = run_workbench(
        "--mode", "json", "--no-session", "--model", model, "/skill:nope", cwd=project
    )
    assert as_json.returncode == 1
    assert json.loads(as_json.stdout.splitlines()[-1])["verdict"] == "unknown"


def test_a_skill_violation_in_warn_mode_is_told_on_stderr_and_the_run_goes_on(project):
    model = skill_project(project)
    done = run_workbench(
        "-p", "--no-session", "--model", model, "/skill:write-draft go", cwd=project
    )
    assert (done.returncode, done.stdout) == (0, "drafted\n")
    assert done.stderr.startswith(
        "workbench: skill load violation: The molecule `write-draft` was loaded without a compound"
    )


def test_a_command_answered_by_notices_prints_them_as_the_answer(project):
    model = skill_project(project)
    done = run_workbench("-p", "--no-session", "--model", model, "/skill-graph-status", cwd=project)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("Skill graph status (enforcer mode: warn)\nActive compound: none")


def test_a_page_that_is_not_a_stream_is_named_as_such_not_as_cut_off(project, server):
    server.add(Raw(b"<html><body><h1>Welcome to nginx!</h1></body></html>\n"))
    done = run_workbench(
        "-p", "--model", "openai/m", "--api-base", server.url, "--api-key", "k", "hi", cwd=project
    )
    assert done.returncode == 1 and done.stdout == ""
    assert f"the server at {server.url} did not answer with an OpenAI-compatible stream" in (
        done.stderr
    )
    assert "cut off" not in done.stderr and len(server.requests) == 1, "not retried"


def test_json_events_grow_with_the_reply_not_its_square(project, server):
    reply = " ".join(f"word{n}" for n in range(3000))  # about 20 KB in 3,000 pieces
    server.add(
        Reply(
            text=reply,
            tool_calls=[{"name": "read", "arguments": {"path": "notes.txt"}}],
            fragment_size=4,
        ),
        Reply(text="done"),
    )
    (project / "notes.txt").write_text("notes\n")
    model = ("--model", "openai/m", "--api-base", server.url, "--api-key", "k")
    done = run_workbench("--mode", "json", *model, "go", cwd=project)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    updates = [json.loads(line) for line in lines if '"message_update"' in line[:30]]
    text = [u for u in updates if u["delta_type"] == "text"]
    calls = [u for u in updates if u["delta_type"] == "tool_call"]
    assert "".join(u["delta"] for u in text) == reply + "done"
    assert all("message" not in u for u in updates), "a delta, not the message so far"
    assert {(u["index"], u["tool_call"]["name"]) for u in calls} == {(0, "read")}
    assert json.loads("".join(u["delta"] for u in calls)) == {"path": "notes.txt"}
    streamed = sum(len(line) for line in lines if '"message_update"' in line[:30])
    assert streamed < 10 * len(reply), f"{streamed} bytes of updates for a {len(reply)} byte reply"
    (end,) = [
        e
        for e in map(json.loads, lines)
        if e["type"] == "message_end"
        and e["message"]["role"] == "assistant"
        and e["message"]["tool_calls"]
    ]
    assert end["message"]["text"] == reply, "the whole message once, at its end"


def test_a_local_server_needs_no_key_and_a_dead_one_is_named(project, server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server.add(Reply(text="served"))
    local = ("-p", "--no-session", "--model", "openai/local")
    done = run_workbench(*local, "--api-base", server.url, "hi", cwd=project)
    assert (done.returncode, done.stdout) == (0, "served\n"), done.stderr
    assert server.headers[0]["authorization"] == "Bearer no-key"

    write_user_settings({"retry": {"max_retries": 1, "base_delay_ms": 1}})
    dead = "http://127.0.0.1:9/v1"
    done = run_workbench(*local, "--api-base", dead, "--api-key", "k", "hi", cwd=project)
    assert done.returncode == 1
    assert f"could not connect to {dead}: is the server running there?" in done.stderr


def test_a_missing_key_is_a_configuration_error_never_retried(project, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    done = run_workbench("-p", "--no-session", "--model", "openai/gpt-4.1", "hi", cwd=project)
    assert done.returncode == 1
    assert "no API key for openai/gpt-4.1: pass --api-key" in done.stderr
    assert "retry" not in done.stderr and done.stderr.count("no API key") == 1


def test_a_headless_run_never_waits_for_approval_and_refuses_with_the_flag(project):
    """The `approval` setting asks in the app only: `-p` runs as `never`; `--approval edits`
    refuses each edit at once, and the model reads why."""
    write_user_settings({"approval": "all"})
    write = {"name": "write", "arguments": {"path": "out.txt", "content": "written\n"}}
    turns = [{"tool_calls": [write]}, {"text": "done"}]
    done = run_workbench("-p", "--model", write_script(project, turns), "go", cwd=project)
    assert (done.returncode, (project / "out.txt").read_text()) == (0, "written\n")
    (project / "out.txt").unlink()
    model = write_script(project, turns)
    refused = run_workbench(
        "--mode", "json", "--approval", "edits", "--model", model, "go", cwd=project
    )
    assert refused.returncode == 0 and not (project / "out.txt").exists()
    events = [json.loads(line) for line in refused.stdout.splitlines()]
    result = next(e for e in events if e["type"] == "tool_execution_end")["result"]
    assert result["is_error"] and "a headless run has no one to give it" in result["text"]
    assert "--approval edits" in result["text"]
