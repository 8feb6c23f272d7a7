"""File tools confined to the project and its worktrees: by flag, by setting, and by default for
read-only sub-agents. A path outside, or a link that leads outside, is refused and named."""

from __future__ import annotations

import json
from pathlib import Path

from support.subagent_calls import call, script, user_agents, write_agent
from support.workbench_process import run_workbench, write_script, write_user_settings


def read_turns(*paths: str) -> list[dict]:
    calls = [{"name": "read", "arguments": {"path": p}} for p in paths]
    return [{"tool_calls": calls}, {"text": "done"}]


def results(stdout: str) -> dict[str, str]:
    ends = [json.loads(line) for line in stdout.splitlines() if '"tool_execution_end"' in line]
    return {e["args"]["path"]: e["result"]["text"] for e in ends}


def plant(project: Path) -> None:
    (project.parent / "secret.txt").write_text("the user's secret\n")
    (project / "notes.txt").write_text("project notes\n")
    (project / "link.txt").symlink_to(project.parent / "secret.txt")


def test_confined_file_tools_refuse_what_lies_outside_the_project(project: Path) -> None:
    plant(project)
    model = write_script(project, read_turns("notes.txt", "../secret.txt", "link.txt"))
    for how in (["--confine-tools"], []):
        if not how:
            write_user_settings({"tools": {"confine": True}})
        done = run_workbench("--mode", "json", "--model", model, *how, "read", cwd=project)
        assert done.returncode == 0, done.stderr
        seen = results(done.stdout)
        assert "project notes" in seen["notes.txt"]
        for outside in ("../secret.txt", "link.txt"):
            assert seen[outside].startswith(f"{outside} is outside the project ({project})")
            assert "secret" not in seen[outside].split("\n")[0].replace("secret.txt", "")


def test_unconfined_is_the_main_agents_default(project: Path) -> None:
    plant(project)
    model = write_script(project, read_turns("../secret.txt"))
    done = run_workbench("--mode", "json", "--model", model, "read", cwd=project)
    assert "the user's secret" in results(done.stdout)["../secret.txt"]


async def test_read_only_sub_agents_are_confined_unless_their_file_says_not(
    project: Path,
) -> None:
    plant(project)
    turns = [read_turns("../secret.txt")[0], {"text": ""}]  # the read's result stays last
    write_agent(user_agents(), "scout", model=script(project, "s", turns), tools="read")
    write_agent(
        user_agents(),
        "mover",
        model=script(project, "m", turns),
        tools="read",
        body="You move files.\n",
    )
    mover = user_agents() / "mover.md"
    mover.write_text(mover.read_text().replace("tools: read", "tools: read\nconfine: false"))

    scouted = await call(project, {"agent": "scout", "task": "look"})
    moved = await call(project, {"agent": "mover", "task": "look"})
    scout, move = scouted.reports[0], moved.reports[0]
    assert "../secret.txt is outside the project" in " ".join(scout["last_lines"]), scout
    assert "the user's secret" in " ".join(move["last_lines"]), move
