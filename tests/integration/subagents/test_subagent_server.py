"""Children that talk to a model through litellm (the local OpenAI-compatible server), started
from the warm interpreter: what each child sends is what its agent file and task say."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import pytest
from support.openai_server import OpenAIServer, Reply
from support.subagent_calls import call, user_agents, write_agent
from support.workbench_process import run_workbench, write_user_settings

from workbench.agent.costs import message_totals
from workbench.agent.events import TurnEnd
from workbench.messages import Message
from workbench.processes import forkserver


def serve_models(project: Path, server: OpenAIServer, *names: str) -> None:
    """The user's settings point the named models at the local server."""
    write_user_settings({"models": {n: {"api_base": server.url, "api_key": "none"} for n in names}})


def offered(request: dict) -> list[str]:
    """The tools a request offered: exactly the agent's `tools:`."""
    return [t["function"]["name"] for t in request["tools"]]


async def test_chain_passes_the_previous_answer_with_each_agents_prompt_tools_and_folder(
    project: Path, server: OpenAIServer, warm: Path
) -> None:
    serve_models(project, server, "openai/scout", "openai/planner")
    (project / "src").mkdir()
    write_agent(
        user_agents(), "scout", model="openai/scout", tools="read", body="You are scout. Find."
    )
    write_agent(
        user_agents(),
        "planner",
        model="openai/planner",
        tools="read, bash, prime_query",
        body="You are planner. Plan.",
    )
    server.add(Reply(text="found: app.py line 3"), Reply(text="plan: fix line 3"))
    chain = [
        {"agent": "scout", "task": "find the bug", "cwd": "src"},
        {"agent": "planner", "task": "Plan from this:\n{previous}"},
    ]

    done = await call(project, {"chain": chain})

    assert not done.result.is_error, done.result.text
    first, second = server.requests
    assert first["model"] == "scout" and second["model"] == "planner"
    assert first["messages"][0]["content"].startswith("You are scout. Find.\n\nAvailable tools:")
    assert first["messages"][0]["content"].endswith(f"Working folder: {project / 'src'}\n")
    assert offered(first) == ["read"]
    assert first["messages"][1] == {"role": "user", "content": "find the bug"}
    assert second["messages"][0]["content"].startswith("You are planner. Plan.")
    assert offered(second) == ["read", "bash"], "no skills here: prime_query is not offered"
    assert second["messages"][1]["content"] == "Plan from this:\nfound: app.py line 3"
    assert [r["warm"] for r in done.reports] == [True, True], "both started warm"
    assert [(r["model"], r["answer"]) for r in done.reports] == [
        ("openai/scout", "found: app.py line 3"),
        ("openai/planner", "plan: fix line 3"),
    ]
    assert done.reports[0]["usage"]["input"] == 100 and done.reports[0]["cost"] is None
    assert done.result.text.startswith("Chain: all 2 steps succeeded")
    assert done.result.text.endswith(
        "plan: fix line 3\n\n[1 turn · 100 in / 20 out · cost unknown · openai/planner]"
    )


async def test_an_agent_without_a_model_uses_the_parents_model_and_server(
    project: Path, server: OpenAIServer, warm: Path
) -> None:
    write_agent(user_agents(), "helper")
    server.add(Reply(text="helped"))

    done = await call(
        project,
        {"agent": "helper", "task": "help"},
        model="openai/parent-model",
        api_base=server.url,
        api_key="k",
    )

    assert done.reports[0]["answer"] == "helped"
    assert server.requests[0]["model"] == "parent-model"


def test_a_warm_headless_parent_starts_its_children_warm(
    project: Path, server: OpenAIServer, warm: Path
) -> None:
    write_agent(user_agents(), "helper")
    delegate = {"name": "subagent", "arguments": {"agent": "helper", "task": "help me"}}
    server.add(Reply(tool_calls=[delegate]), Reply(text="helped"), Reply(text="all done"))

    run = run_workbench(
        "--mode",
        "json",
        "--model",
        "openai/parent",
        "--api-base",
        server.url,
        "--api-key",
        "k",
        "go",
        cwd=project,
        timeout=90,
    )

    assert run.returncode == 0, run.stderr
    events = [json.loads(line) for line in run.stdout.splitlines()]
    result = next(e for e in events if e["type"] == "tool_execution_end")["result"]
    (child,) = result["details"]["subagent"]["results"]
    assert (child["answer"], child["warm"], child["model"]) == ("helped", True, "openai/parent")
    assert server.requests[1]["messages"][1]["content"] == "help me"
    assert events[-1] == {"type": "agent_end", "stop_reason": "completed", "error": None}


def test_children_of_a_run_that_imported_litellm_share_its_warm_interpreter() -> None:
    """Importing litellm sets its defaults in the environment that children inherit: they must
    select the same warm interpreter as a plain run, or every call would start another one."""
    plain = {k: v for k, v in os.environ.items() if not k.startswith("LITELLM_")}
    imported = {**plain, "LITELLM_MODE": "PRODUCTION", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    path = forkserver.socket_path(forkserver.WARM_UP, plain)
    assert forkserver.socket_path(forkserver.WARM_UP, imported) == path
    assert forkserver.socket_path(forkserver.WARM_UP, {**plain, "LITELLM_MODE": "DEV"}) != path


def command_lines_holding(secret: str) -> list[str]:
    """The command lines of running processes (as `ps` shows them) that contain `secret`."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = cmdline.read_bytes().split(b"\0")
        except OSError:  # the process is gone, or not ours to read
            continue
        if any(secret.encode() in arg for arg in argv):
            found.append(b" ".join(argv).decode(errors="replace"))
    return found


async def test_a_childs_api_key_reaches_its_model_but_never_a_command_line(
    project: Path, server: OpenAIServer
) -> None:
    key = f"sk-test-{uuid.uuid4().hex}"
    exposed: list[str] = []

    def answer(_body: dict) -> Reply:  # the child is running and waiting for this reply
        exposed.extend(command_lines_holding(key))
        return Reply(text="helped")

    server.add(answer)
    write_agent(user_agents(), "helper")

    done = await call(
        project,
        {"agent": "helper", "task": "help"},
        model="openai/parent-model",
        api_base=server.url,
        api_key=key,
    )

    assert done.reports[0]["answer"] == "helped", done.result.text
    assert server.headers[0]["authorization"] == f"Bearer {key}", "the child used the key"
    assert exposed == [], "the key was visible to `ps`"


async def test_a_childs_tokens_cache_and_cost_roll_up_into_the_parents_totals(
    project: Path, server: OpenAIServer, warm: Path
) -> None:
    price = {"input": 1, "output": 2, "cache_read": 0.1}  # USD per million
    entry = {"api_base": server.url, "api_key": "none", "cost": price}
    write_user_settings({"models": {"openai/scout": entry}})
    write_agent(user_agents(), "scout", model="openai/scout", tools="read")
    usage = {"prompt_tokens": 1000, "completion_tokens": 10}
    usage["prompt_tokens_details"] = {"cached_tokens": 800}  # type: ignore[assignment]
    server.add(Reply(text="found it", usage=usage))

    done = await call(project, {"agent": "scout", "task": "find"})

    assert not done.result.is_error, done.result.text
    report = done.reports[0]
    assert report["usage"] == {"input": 200, "output": 10, "cache_read": 800, "cache_write": 0}
    # 200 x $1 + 800 x $0.10 + 10 x $2, per million
    assert report["cost"] == pytest.approx(300e-6)
    assert "1 turn · 200 in / 10 out · 800 cached · $0.0003" in done.result.text
    parent = Message(role="tool_result", text=done.result.text, details=done.result.details)
    totals = message_totals([parent])
    assert (totals.input_tokens, totals.cache_read_tokens, totals.calls) == (200, 800, 1)
    assert totals.cost == pytest.approx(300e-6)
    assert TurnEnd(None, [parent]).to_dict()["usage"]["cost"] == pytest.approx(300e-6)
