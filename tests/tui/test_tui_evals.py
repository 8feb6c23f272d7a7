"""A skill's last eval in the app: `/eval` shows the reports as a view, the skill detail view its
summary (the eval itself, `workbench eval` and `/eval SKILL` over RPC and ACP, is tested in
tests/integration/evals)."""

from __future__ import annotations

from support.app_pilot import SIZE, opened, plain, screen_shown, until
from support.app_scenarios import EVALUATED as SKILL
from support.app_scenarios import last_eval as saved_eval

from workbench.tui.components.report_view import ReportView
from workbench.tui.components.skill_detail import SkillDetail
from workbench.tui.components.skill_panel import SkillPanel


async def test_eval_shows_the_last_report_and_says_how_to_make_one(make_app, project) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        app.editor.insert("/eval")
        await pilot.press("enter")
        await screen_shown(pilot, ReportView, "the view")
        said = "no skill of this project has an eval yet: `workbench eval PATH` or `/eval SKILL`"
        assert said in plain(app.screen.body)
        await pilot.press("escape")
        saved_eval(project)
        app.editor.insert("/eval")
        await pilot.press("enter")
        await screen_shown(pilot, ReportView, "the report")
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
        await screen_shown(pilot, SkillDetail, "the skill view")
        await pilot.pause()
        summary = plain(app.screen.query_one("#last-eval").render())
        assert "last eval (sweep-1): 6 runs" in summary
        assert "with_skill: 100% passed, uptake 100%" in summary
        assert "without_skill: 0% passed, uptake 0%" in summary
        await pilot.press("escape")
        await until(pilot, lambda: app.focused is app.editor, "the focus back in the editor")
