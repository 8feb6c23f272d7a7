"""skill_activate / skill_deactivate, /skill:<name>, prime_query and /skill-graph-status."""

from __future__ import annotations

import pytest
from support.enforcer_harness import RecordingSink
from support.skill_trees import write_tree

from workbench.config import Settings
from workbench.enforcer.extension import register
from workbench.enforcer.state import LoadingState
from workbench.errors import WorkbenchError
from workbench.extension_api import ExtensionAPI
from workbench.hooks import HookBus
from workbench.output_limits import MAX_BYTES


async def test_activation_injects_the_body_as_the_tool_result(harness):
    h = harness()
    message = await h.call("skill_activate", name="publish-report")
    assert not message.is_error
    assert message.text.startswith(
        '<skill name="publish-report" location=".pi/skills/publish-report/SKILL.md">\n## Purpose'
    )
    assert "## Known limitations\nNeeds network access.\n</skill>" in message.text
    assert "Load each molecule only when you reach its step" in message.text
    assert message.details["skill_load"]["how"] == "activate"
    assert h.enforcer.state.activated == {"publish-report"}
    prompt = await h.system_prompt()
    assert "## Purpose" not in prompt  # the body never enters the system prompt


async def test_a_huge_skill_is_cut_like_a_read_with_where_the_rest_is(harness):
    h = harness()
    skill_file = h.root / ".pi" / "skills" / "publish-report" / "SKILL.md"
    with skill_file.open("a") as handle:
        handle.write("".join(f"step {n}: do the thing carefully\n" for n in range(200_000)))
    assert h.enforcer.refresh(), "as at the start of a turn"
    message = await h.call("skill_activate", name="publish-report")
    assert not message.is_error
    assert len(message.text.encode()) < MAX_BYTES + 1024, "capped like read, not 5 MB"
    assert message.text.startswith('<skill name="publish-report"')
    assert (
        "(2000 lines or 50 KB at most). Read the rest with read "
        ".pi/skills/publish-report/SKILL.md and an offset.]\n</skill>"
    ) in message.text


async def test_activation_goes_through_the_same_check(harness):
    h = harness()
    message = await h.call("skill_activate", name="outline")
    assert not message.is_error
    assert message.text.startswith("[skill graph] Skill loading violation: The atom `outline`")
    assert h.verdicts() == [("outline", "violation")]
    blocking = harness(enforcer={"mode": "block"})
    refused = await blocking.call("skill_activate", name="outline")
    assert refused.is_error and refused.text.startswith("Refused by the skill graph enforcer.")
    assert "<skill" not in refused.text


async def test_unknown_and_disallowed_names_list_close_matches(harness):
    h = harness(skills={"deny": ["publish-*"]})
    unknown = await h.call("skill_activate", name="triage-bugs")
    assert unknown.is_error
    assert unknown.text == "There is no skill named `triage-bugs`. Did you mean: triage-bug?"
    denied = await h.call("skill_activate", name="publish-report")
    assert denied.is_error
    assert "`publish-report` is not allowed in this project" in denied.text
    assert "`skills.deny` pattern `publish-*`" in denied.text
    assert h.verdicts() == [("triage-bugs", "unknown"), ("publish-report", "denied")]
    assert "publish-report" not in h.enforcer.state.loaded


async def test_allowed_tools_the_session_lacks_are_reported(harness):
    h = harness()
    message = await h.call("skill_activate", name="run-tests")
    assert message.text.endswith(
        "Note: `run-tests` expects tools this session does not have: Grep. Do those steps with "
        "the tools you have, or tell the user what is missing."
    )


async def test_deactivation_is_recorded_and_derived(harness):
    h = harness()
    await h.call("skill_activate", name="triage-bug")
    message = await h.call("skill_deactivate", name="triage-bug")
    assert message.text == "Deactivated `triage-bug`: stop following its instructions from here on."
    assert "triage-bug" not in h.enforcer.state.loaded
    assert LoadingState.derive(h.messages).loaded == {}
    again = await h.call("skill_deactivate", name="triage-bug")
    assert again.is_error and again.text == "`triage-bug` is not active. Active skills: none."


async def test_skill_command_starts_a_workflow(harness):
    h = harness()
    event = await h.user("/skill:triage-bug the login page crashes\non Safari")
    assert not event.handled
    assert event.text.startswith('<skill name="triage-bug"')
    assert event.text.endswith(
        "Follow the skill `triage-bug` above to handle this request:\n\n"
        "the login page crashes\non Safari"
    )
    assert event.details["skill_load"]["how"] == "command"
    assert h.enforcer.state.active_compound == "triage-bug"
    assert LoadingState.derive(h.messages).active_compound == "triage-bug"
    plain = await h.user("/skill:fetch-url")
    assert plain.text.endswith(
        "Follow the skill `fetch-url` above. If the task is unclear, ask me one question."
    )


async def test_skill_command_refusals_are_consumed_and_reported(harness):
    h = harness(enforcer={"mode": "block"})
    unknown = await h.user("/skill:nope do it")
    assert unknown.handled and h.verdicts() == [("nope", "unknown")]
    refused = await h.user("/skill:gather-sources fetch it")
    assert refused.handled
    assert h.sink.events[-1].verdict == "violation" and h.sink.events[-1].blocked
    assert h.messages == []
    ordinary = await h.user("/skills are great")
    assert not ordinary.handled and ordinary.text == "/skills are great"


async def test_status_command(harness):
    h = harness()
    await h.read("publish-report")
    await h.read("outline")
    text = h.api.commands["skill-graph-status"].handler("")
    assert "Active compound: publish-report" in text
    assert "  atom: outline" in text and "  compound: publish-report" in text
    assert "Violations and notices (1):" in text and "outline  [atom, read]  violation" in text


async def test_prime_query_tool(harness):
    h = harness()
    answer = await h.call(
        "prime_query", scope="compound:triage-bug", level="core", budget_tokens=400
    )
    assert "shown (core)" in answer.text
    assert "### .pi/skills/triage-bug/SKILL.md\ntriage-bug (compound): " in answer.text
    assert answer.details["prime_query"]["shown"][0] == {"skill": "triage-bug", "level": "core"}
    bad = await h.call("prime_query", scope="everything")
    assert bad.is_error and "unknown scope 'everything'" in bad.text


def test_bad_settings_are_reported_at_registration(tmp_path):
    (tmp_path / ".pi").mkdir()
    (tmp_path / ".pi" / "settings.json").write_text('{"enforcer": {"mode": "strict"}}')
    api = ExtensionAPI(HookBus(), RecordingSink())
    graph = write_tree(tmp_path / "skills")
    with pytest.raises(WorkbenchError, match=r"enforcer\.mode is 'strict'; it must be one of"):
        register(api, graph, Settings.load(tmp_path))


async def test_user_level_activation_and_deactivation_reach_the_model(harness):
    h = harness()
    outcome = h.enforcer.activate_for_user("triage-bug")
    assert not outcome.is_error
    [(message, how)] = h.sink.delivered
    assert how == "next_turn" and message.text.startswith('<skill name="triage-bug"')
    assert message.details["skill_load"]["how"] == "command"
    result = h.enforcer.deactivate_for_user("triage-bug", deliver_as="steer")
    assert not result.is_error
    withdrawn, how = h.sink.delivered[-1]
    assert how == "steer" and withdrawn.details["skill_deactivate"]["skill"] == "triage-bug"
    assert LoadingState.derive([message, withdrawn]).loaded == {}
    assert h.enforcer.activate_for_user("nope").is_error
    assert len(h.sink.delivered) == 2  # nothing is sent for an unknown name
