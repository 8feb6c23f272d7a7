"""Bad calls get clear errors; children that crash or print garbage give clear failed results."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.subagent_calls import bash, call, project_agents, script, user_agents, write_agent
from support.workbench_process import run_workbench

from workbench.config import agent_dir
from workbench.errors import WorkbenchError


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({}, r"^give exactly one mode$"),
        (
            {"agent": "a", "task": "t", "chain": [{"agent": "a", "task": "t"}]},
            r"^give exactly one mode \(this call gave single and chain\)$",
        ),
        ({"agent": "a"}, r"^single mode needs a task$"),
        ({"agent": "", "task": "", "tasks": [], "chain": None}, r"^give exactly one mode$"),
        ({"tasks": "scout"}, r"^tasks must be a non-empty list"),
        ({"chain": [{"agent": "a", "task": "t"}, "b"]}, r"^chain\[2\] must be an object"),
        (
            {"tasks": [{"agent": "a", "task": "t"}], "cwd": "x"},
            r"^cwd applies to single mode; in parallel mode give each task its cwd$",
        ),
        ({"agent": "a", "task": "t", "cwd": "nowhere"}, r"single mode: the folder .*nowhere"),
        ({"agent": "a", "task": "t", "scope": "all"}, r"^scope must be one of user, project"),
    ],
)
async def test_malformed_calls_say_what_is_wrong(project: Path, args: dict, message: str) -> None:
    write_agent(user_agents(), "a")
    with pytest.raises(WorkbenchError) as raised:
        await call(project, args)
    assert re.search(message, raised.value.message), raised.value.message
    if "exactly one mode" in message:
        assert raised.value.hint.startswith("single: {agent, task}; parallel: {tasks: [")


async def test_an_unknown_agent_lists_the_available_ones(project: Path) -> None:
    write_agent(user_agents(), "scout", description="finds")
    write_agent(user_agents(), "planner")
    write_agent(project_agents(project), "reviewer")
    (user_agents() / "broken.md").write_text("---\nname: broken\n---\nno description\n")

    with pytest.raises(WorkbenchError) as raised:
        await call(project, {"agent": "scuot", "task": "find it"})

    assert raised.value.message == (
        "unknown agent 'scuot'; available (scope user): planner (user), scout (user)"
    )
    assert raised.value.hint == (
        "project agents (reviewer) need scope 'project' or 'both'; skipped files: "
        f"{user_agents() / 'broken.md'}: `description` is required: say what the agent is for"
    )


async def test_a_child_that_dies_mid_run_is_a_clear_failure(project: Path) -> None:
    dies = script(project, "dies", [bash("kill -9 $PPID"), {"text": "never"}])
    write_agent(user_agents(), "fragile", model=dies, tools="bash")

    done = await call(project, {"agent": "fragile", "task": "t"})

    assert done.result.is_error
    (report,) = done.reports
    assert (report["status"], report["stop_reason"], report["exit_code"]) == (
        "failed",
        "crashed",
        -9,
    )
    assert "Failed: the child ended without finishing (exit code -9)" in done.result.text


async def test_a_child_that_cannot_start_its_model_shows_its_stderr(project: Path) -> None:
    write_agent(user_agents(), "lost", model=f"scripted:{project / 'missing.json'}")

    done = await call(project, {"agent": "lost", "task": "t"})

    (report,) = done.reports
    assert (report["status"], report["exit_code"]) == ("failed", 1)
    assert f"script {project / 'missing.json'} does not exist" in report["stderr"]
    assert "Its stderr ends with:\nworkbench: script" in done.result.text


async def test_an_agent_naming_a_tool_that_does_not_exist_fails_clearly(project: Path) -> None:
    write_agent(user_agents(), "typo", model=script(project, "t", [{"text": "x"}]), tools="reed")

    done = await call(project, {"agent": "typo", "task": "t"})

    (report,) = done.reports
    assert (report["status"], report["exit_code"]) == ("failed", 2)
    assert report["stderr"].startswith("workbench: unknown tool reed\n  hint: the tools are read,")


def extension(name: str, code: str) -> None:
    """A user extension: it loads in every child (the parent here opens no session)."""
    folder = agent_dir() / "extensions"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.py").write_text(code)


async def test_a_child_that_prints_garbage_and_exits_is_a_clear_failure(project: Path) -> None:
    extension(
        "noise",
        "import os, sys\n"
        "def register(api):\n"
        "    print('this is not json')\n"
        "    print('{\"half\": ')\n"
        "    sys.stdout.flush()\n"
        "    os._exit(0)\n",
    )
    write_agent(user_agents(), "noisy", model=script(project, "n", [{"text": "fine"}]))

    done = await call(project, {"agent": "noisy", "task": "t"})

    (report,) = done.reports
    assert (report["status"], report["stop_reason"], report["garbage_count"]) == (
        "failed",
        "crashed",
        2,
    )
    assert report["error"] == (
        "the child ended without finishing (exit code 0); 2 output line(s) were not JSON "
        'events, the last: this is not json | {"half":'
    )


async def test_garbage_between_events_does_not_spoil_a_good_run(project: Path) -> None:
    extension("chatty", "def register(api):\n    print('hello from an extension', flush=True)\n")
    write_agent(user_agents(), "chatty", model=script(project, "c", [{"text": "fine"}]))

    done = await call(project, {"agent": "chatty", "task": "t"})

    (report,) = done.reports
    assert (report["status"], report["answer"], report["garbage"]) == (
        "completed",
        "fine",
        ["hello from an extension"],
    )


def test_the_system_prompt_file_flag_reports_bad_use(project: Path) -> None:
    model = script(project, "m", [{"text": "hi"}])
    missing = run_workbench(
        "-p", "--model", model, "--system-prompt-file", "gone.md", "hi", cwd=project
    )
    both = run_workbench(
        "-p",
        "--model",
        model,
        "--system-prompt",
        "x",
        "--system-prompt-file",
        "m.json",
        "hi",
        cwd=project,
    )
    assert missing.returncode == 2 and missing.stdout == ""
    assert missing.stderr.startswith("workbench: cannot read the system prompt file gone.md: ")
    assert both.returncode == 2
    assert both.stderr == "workbench: give --system-prompt or --system-prompt-file, not both\n"
