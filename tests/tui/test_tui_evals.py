"""A skill's last eval in the app: `/eval` shows the report as a view, the skill detail view its
summary (the eval itself is `workbench eval`, tested in tests/integration/evals)."""

from __future__ import annotations

from pathlib import Path

from support.app_pilot import SIZE, opened, plain, until

from workbench.evals.results import EvalReport, EvalRun
from workbench.evals.saved import save_last
from workbench.evals.uptake import Uptake
from workbench.tui.components.report_view import ReportView
from workbench.tui.components.skill_detail import SkillDetail
from workbench.tui.components.skill_panel import SkillPanel

SKILL = "compound-ship-change"


def saved_eval(project: Path) -> None:
    runs = [
        EvalRun("fix", config, n, f"sweep-1.fix-{config}-{n}", "done", passed, seconds=9.0 + n)
        for config, passed in (("with_skill", True), ("without_skill", False))
        for n in (1, 2, 3)
    ]
    for run in runs:
        run.uptake = Uptake(loaded=run.passed, turn=1 if run.passed else None)
    case = {"id": "fix", "prompt": "Fix it."}
    save_last(project, EvalReport(SKILL, [case], ["with_skill", "without_skill"], runs, "sweep-1"))


async def test_eval_shows_the_last_report_and_says_how_to_make_one(make_app, project) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        app.editor.insert("/eval")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ReportView), "the view")
        assert "no eval yet: `workbench eval PATH` runs one" in plain(app.screen.body)
        await pilot.press("escape")
        saved_eval(project)
        app.editor.insert(f"/eval {SKILL}")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ReportView), "the report")
        text = " ".join(plain(app.screen.body).split())  # the view wraps long lines
        assert f"eval of {SKILL}: 1 case × 2 configurations (sweep-1)" in text
        assert "with_skill passes more often: +100% over 3 and 3 runs" in text


async def test_the_skill_detail_view_shows_its_last_eval(make_app, project) -> None:
    saved_eval(project)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        panel = app.query_one(SkillPanel)
        panel.post_message(SkillPanel.Opened(SKILL))
        await until(pilot, lambda: isinstance(app.screen, SkillDetail), "the skill view")
        await pilot.pause()
        summary = plain(app.screen.query_one("#last-eval").render())
        assert "last eval (sweep-1): 6 runs" in summary
        assert "with_skill: 100% passed, uptake 100%" in summary
        assert "without_skill: 0% passed, uptake 0%" in summary
        await pilot.press("escape")
        await until(pilot, lambda: app.focused is app.editor, "the focus back in the editor")
