"""The offline demo model over several prompts of one session, with the enforcer watching: it
follows the skill graph like a careful model, reading no skill file twice on a branch, so the
enforcer finds nothing to warn about and no read is skipped."""

from __future__ import annotations

from pathlib import Path

from support.opened_workbench import Opened

SKILLS = ".pi/skills"


def reads_after(opened: Opened, prompt: str) -> list[str]:
    """The skill files read for `prompt` (until the next user message), in order."""
    messages = opened.wb.messages()
    start = next(i for i, m in enumerate(messages) if m.role == "user" and m.text == prompt)
    later = messages[start + 1 :]
    end = next((i for i, m in enumerate(later) if m.role == "user"), len(later))
    return [
        str(c.arguments["path"]).removeprefix(f"{SKILLS}/").removesuffix("/SKILL.md")
        for m in later[:end]
        for c in m.tool_calls
    ]


def assert_followed_cleanly(opened: Opened) -> None:
    """No read skipped, no notice from the enforcer, every load of the branch ok."""
    assert [e.args for e in opened.of("tool_execution_end") if e.skipped] == []
    assert [m.text for m in opened.wb.messages() if m.role == "notice"] == []
    assert opened.wb.loading_state().violations == []


async def ask(opened: Opened, prompt: str) -> str:
    assert await opened.run(prompt) == "completed"
    return opened.wb.messages()[-1].text


async def test_a_second_prompt_reads_only_the_skills_it_still_needs(project: Path, opened) -> None:
    demo = await opened(project)
    await ask(demo, "publish a report: gather sources for it")
    answer = await ask(demo, "now write the draft of the report")

    assert reads_after(demo, "now write the draft of the report") == [
        "write-draft",
        "outline",
        "format-citations",
    ]
    assert_followed_cleanly(demo)
    assert "**compound** `publish-report` (read earlier): Handle publish report" in answer
    assert "**molecule** `write-draft`: Handle write draft" in answer
    assert "**atom** `outline`" in answer and "**atom** `format-citations`" in answer
    said = [m.text for m in demo.wb.messages() if m.role == "assistant"]
    assert any("I already have `publish-report` from earlier" in text for text in said)


async def test_three_prompts_switch_compounds_and_come_back_without_reading_twice(
    project: Path, opened
) -> None:
    demo = await opened(project)
    await ask(demo, "publish a report: gather sources for it")
    triage = await ask(demo, "triage the bug: reproduce it")
    again = await ask(demo, "gather the sources for the report again")

    assert reads_after(demo, "publish a report: gather sources for it") == [
        "publish-report",
        "gather-sources",
        "fetch-url",
        "extract-text",
    ]
    # another compound: its own molecule and the one atom not read yet
    assert reads_after(demo, "triage the bug: reproduce it") == [
        "triage-bug",
        "reproduce-bug",
        "run-tests",
    ]
    assert "**atom** `extract-text` (read earlier): Handle extract text" in triage
    assert "**atom** `run-tests`: Handle run tests" in triage
    # back to the first compound: everything it needs is in the context already
    assert reads_after(demo, "gather the sources for the report again") == []
    for name in ("publish-report", "gather-sources", "fetch-url", "extract-text"):
        assert f"`{name}` (read earlier): Handle {name.replace('-', ' ')}" in again
    assert_followed_cleanly(demo)
