"""Slash commands complete from one table, with arguments from the session."""

from __future__ import annotations

from workbench.tui.slash import BY_NAME, COMMANDS, SkillCommand, completions, split


def no_values(source: str) -> list[tuple[str, str]]:
    return []


def test_every_command_of_the_issue_is_offered() -> None:
    wanted = (
        "tree fork status diff commit merge label compact model approval skills skill-graph-status "
        "activate deactivate push export mcp new resume sweep help quit eval"
    )
    assert sorted(c.name for c in COMMANDS) == sorted(wanted.split())


def test_a_prefix_completes_to_the_commands_it_starts() -> None:
    found = completions("/s", {}, no_values)
    assert [c.text for c in found] == ["/status ", "/skills", "/skill-graph-status", "/sweep "]
    assert found[0].label == "/status [branch]"


def test_extension_commands_complete_too_and_ours_are_not_doubled() -> None:
    extra = {"deploy": "ship it", "compact": "summarise"}
    found = completions("/", extra, no_values)
    texts = [c.text for c in found]
    assert "/deploy " in texts and texts.count("/compact ") == 1
    assert found[texts.index("/deploy ")].help == "ship it (extension)"


def test_arguments_complete_from_the_session_each_with_its_own_description() -> None:
    values = {
        "skills": [
            ("atom-edit-code", "Edit code in place."),
            ("atom-find-code", "Find where something is handled."),
            ("molecule-plan-change", "Plan a change."),
        ]
    }
    found = completions("/activate atom-", {}, lambda source: values.get(source, []))
    assert [(c.text, c.help) for c in found] == [
        ("/activate atom-edit-code", "Edit code in place."),
        ("/activate atom-find-code", "Find where something is handled."),
    ]
    assert completions("/fork x", {}, lambda source: [("x-y", "a branch")]) == []


def test_split_and_required_arguments() -> None:
    assert split("/fork try b") == ("fork", "try b")
    assert split("/help") == ("help", "")
    assert split("hello /fork") is None
    assert split("//not a command") is None
    assert BY_NAME["merge"].needs_argument and not BY_NAME["fork"].needs_argument


def test_skill_commands_complete_with_their_own_words() -> None:
    skills = [
        SkillCommand("review-pr", "Reviews a pull request.", "[pr-number]"),
        SkillCommand("release", "Cuts a release."),
    ]
    found = completions("/skill:re", {}, no_values, skills)
    assert [(c.text, c.label, c.help) for c in found] == [
        ("/skill:review-pr ", "/skill:review-pr [pr-number]", "Reviews a pull request."),
        ("/skill:release ", "/skill:release", "Cuts a release."),
    ]
    assert [c.text for c in completions("/skill:rel", {}, no_values, skills)] == ["/skill:release "]


def test_help_lists_each_command_once_and_the_skill_command() -> None:
    from rich.console import Console

    from workbench.tui.reports import help_report

    console = Console(width=120, record=True)
    console.print(help_report([("Enter", "send")], {"compact": "summarise", "deploy": "ship"}, []))
    text = console.export_text()
    assert text.count("/compact") == 1 and "/deploy" in text
    assert "/skill:NAME [request]" in text and "/status [branch]" in text
