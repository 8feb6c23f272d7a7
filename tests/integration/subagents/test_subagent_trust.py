"""Project agents are the repository's code: they run only once the user agrees."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from support.subagent_calls import bash, call, project_agents, script, user_agents, write_agent
from support.workbench_process import run_workbench, write_settings

from workbench.config import agent_dir
from workbench.trust import TrustStore


def project_agent(project: Path) -> None:
    """A project agent whose run leaves a file behind."""
    runs = script(project, "p", [bash("touch agent-ran"), {"text": "reviewed"}])
    write_agent(project_agents(project), "reviewer", model=runs, tools="bash")


REVIEW = {"agent": "reviewer", "task": "review", "scope": "project"}


class Asker:
    """A front end's confirm dialog that answers `answer` and remembers what it was asked."""

    def __init__(self, answer: bool) -> None:
        self.answer = answer
        self.asked: list[tuple[str, str]] = []

    async def __call__(self, title: str, message: str) -> bool:
        self.asked.append((title, message))
        return self.answer


async def test_without_anyone_to_ask_project_agents_do_not_run(project: Path) -> None:
    project_agent(project)

    done = await call(project, REVIEW)

    assert done.result.is_error and not (project / "agent-ran").exists()
    assert done.result.text.startswith(
        f"Not run: project agents (reviewer) from {project_agents(project)} are code from this "
        "repository and need the user's confirmation, which no one can give here. Run with "
        "--trust"
    )


async def test_the_user_is_asked_and_a_refusal_stops_the_call(project: Path) -> None:
    project_agent(project)
    asker = Asker(False)

    done = await call(project, REVIEW, confirm=asker)

    assert asker.asked == [
        (
            "Run project agents?",
            f"Run project agents reviewer from {project_agents(project)}?\n\nThey are defined "
            "by this repository: only continue if you trust it.",
        )
    ]
    assert done.result.is_error and not (project / "agent-ran").exists()
    assert done.result.text == "Not run: the user declined to run the project agents reviewer"


async def test_a_yes_runs_the_agent(project: Path) -> None:
    project_agent(project)
    asker = Asker(True)

    done = await call(project, {**REVIEW, "scope": "both"}, confirm=asker)

    assert len(asker.asked) == 1 and not done.result.is_error
    assert (project / "agent-ran").exists() and done.reports[0]["answer"] == "reviewed"


async def test_user_settings_or_a_trusted_project_skip_the_question(project: Path) -> None:
    project_agent(project)
    never = Asker(False)
    (agent_dir() / "settings.json").parent.mkdir(parents=True, exist_ok=True)
    (agent_dir() / "settings.json").write_text(
        json.dumps({"subagents": {"confirm_project_agents": False}})
    )
    done = await call(project, REVIEW, confirm=never)
    assert never.asked == [] and done.reports[0]["status"] == "completed"

    (agent_dir() / "settings.json").unlink()
    TrustStore().trust(project)
    done = await call(project, REVIEW, confirm=never)
    assert never.asked == [] and done.reports[0]["status"] == "completed"


async def test_a_repository_cannot_switch_the_question_off_itself(project: Path) -> None:
    project_agent(project)
    write_settings(project, {"subagents": {"confirm_project_agents": False}})
    asker = Asker(False)

    done = await call(project, REVIEW, confirm=asker)

    assert len(asker.asked) == 1 and not (project / "agent-ran").exists()
    assert done.result.is_error


def test_headless_runs_need_trust_for_project_agents(project: Path) -> None:
    project_agent(project)
    parent = script(
        project,
        "parent",
        [{"tool_calls": [{"name": "subagent", "arguments": REVIEW}]}, {"text": "finished"}],
    )

    def tool_result(run: subprocess.CompletedProcess[str]) -> dict:
        events = [json.loads(line) for line in run.stdout.splitlines()]
        return next(e for e in events if e["type"] == "tool_execution_end")["result"]

    refused = run_workbench("--mode", "json", "--model", parent, "go", cwd=project)
    assert refused.returncode == 0 and tool_result(refused)["is_error"]
    assert "need the user's confirmation" in tool_result(refused)["text"]
    assert not (project / "agent-ran").exists()

    trusted = run_workbench("--mode", "json", "--trust", "--model", parent, "go", cwd=project)
    assert trusted.returncode == 0 and not tool_result(trusted)["is_error"]
    assert tool_result(trusted)["details"]["subagent"]["results"][0]["answer"] == "reviewed"
    assert (project / "agent-ran").exists()


async def test_trust_for_the_project_does_not_travel_to_a_folder_the_model_names(
    project: Path,
) -> None:
    vendor = project / "vendor" / "evil"
    (vendor / ".pi" / "extensions").mkdir(parents=True)
    ran = project / "evil-ran"
    (vendor / ".pi" / "extensions" / "evil.py").write_text(
        f"from pathlib import Path\nPath({str(ran)!r}).write_text('x')\ndef register(api): pass\n"
    )
    (project / ".pi" / "extensions").mkdir(parents=True)
    (project / ".pi" / "extensions" / "own.py").write_text(
        f"from pathlib import Path\nPath({str(project / 'own-ran')!r}).write_text('x')\n"
        "def register(api): pass\n"
    )
    write_agent(user_agents(), "helper", model="demo")
    task = {"agent": "helper", "task": "look around"}

    done = await call(project, {**task, "cwd": "vendor/evil"}, trust=True)
    assert done.reports[0]["status"] == "completed", done.result.text
    assert not ran.exists(), "--trust was given for the project, not for vendor/evil"

    done = await call(project, task, trust=True)
    assert done.reports[0]["status"] == "completed", done.result.text
    assert (project / "own-ran").exists(), "the project itself is trusted for this run"
