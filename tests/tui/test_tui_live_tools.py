"""Running tools seen without expanding them: bash output as it comes, a sub-agent's progress,
and a sub-agent's rule violations in the skill panel (real child processes)."""

from __future__ import annotations

from pathlib import Path

from support.app_pilot import SIZE, ask, build_app, opened, plain, until, write_script

from workbench.config import agent_dir
from workbench.tui.components.skill_panel import SkillPanel


def live_text(app) -> str:
    return "\n".join(plain(row.render()) for row in app.transcript.live)


async def test_a_running_bash_command_shows_its_last_lines_under_its_header(
    make_app, script, project: Path
) -> None:
    """The lines after the first come within the tool's update interval and the command then
    waits: they must show all the same (they used to wait for more output, which never came;
    the pause makes that timing certain instead of a matter of load)."""
    lines = "echo line-1; sleep 0.03; for i in 2 3 4 5 6; do echo line-$i; done"
    command = f"{lines}; until [ -f go ]; do sleep 0.05; done"
    bash = {"name": "bash", "arguments": {"command": command}}
    app = make_app(script({"tool_calls": [bash]}, {"text": "done"}))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        app.editor.insert("count")
        await pilot.press("enter")
        await until(pilot, lambda: "line-6" in live_text(app), "the output in the collapsed row")
        shown = live_text(app)
        assert "line-3" in shown and "line-2" not in shown, "only the last four lines"
        (project / "go").touch()
        await until(pilot, lambda: "line-6" not in live_text(app), "the row folded on finishing")


async def test_a_sub_agents_violation_shows_in_the_skill_panel(make_app, project: Path) -> None:
    read = {"name": "read", "arguments": {"path": "skills/molecule-plan-change/SKILL.md"}}
    child = write_script(project, {"tool_calls": [read]}, {"text": "planned"}, name="child.json")
    agents = agent_dir() / "agents"
    agents.mkdir(parents=True)
    (agents / "planner2.md").write_text(
        f"---\nname: planner2\ndescription: plans\ntools: read\nmodel: {child}\n---\nPlan.\n"
    )
    call = {"name": "subagent", "arguments": {"agent": "planner2", "task": "plan it"}}
    parent = write_script(project, {"tool_calls": [call]}, {"text": "the child planned"})
    app = make_app(parent)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await ask(pilot, app, "delegate the plan")
        panel = app.query_one(SkillPanel)
        await until(pilot, lambda: panel.violations["molecule-plan-change"] == 1, "the violation")
        assert "⚠1" in panel.label_of("molecule-plan-change").plain
        assert "1 violation" in str(panel.border_title)

        app.session.sync_skills()  # as after navigating or resuming: rebuilt from the log
        assert panel.violations["molecule-plan-change"] == 1


async def test_a_running_tool_shows_how_long_it_has_run(script, project: Path) -> None:
    bash = {"name": "bash", "arguments": {"command": "until [ -f go ]; do sleep 0.05; done"}}
    app = build_app(project, pictures=False, model=script({"tool_calls": [bash]}, {"text": "ok"}))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        app.editor.insert("wait")
        await pilot.press("enter")
        await until(pilot, lambda: "running…" in live_text(app), "the running call")
        assert "running… 1 s" not in live_text(app)
        await until(pilot, lambda: "running… 1 s" in live_text(app), "a second later", 3.0)
        (project / "go").touch()
        await until(pilot, lambda: "running…" not in live_text(app), "the end")
