"""Skill loads through the hook bus in each mode: what the model is told, what front ends see."""

from __future__ import annotations

from workbench.enforcer.state import LoadingState


async def test_warn_lets_the_read_go_and_steers_the_model(harness):
    h = harness()
    message = await h.read("write-draft")
    assert not message.is_error
    assert "## Orchestration" in message.text  # the file was read
    [notice] = h.notices()
    assert notice.startswith("[skill graph] Skill loading violation: The molecule `write-draft`")
    first = "Load the compound first: `publish-report` (.pi/skills/publish-report/SKILL.md)"
    assert first in notice
    assert h.verdicts() == [("write-draft", "violation")]
    record = message.details["skill_load"]
    assert (record["skill"], record["layer"], record["verdict"], record["how"]) == (
        "write-draft",
        "molecule",
        "violation",
        "read",
    )
    assert record["blocked"] is False and record["time"] > 0
    assert message.text.endswith(
        "[skill graph] Loaded molecule `write-draft`. Follow its steps; it may load these atoms "
        "when a step calls for them: `outline` (.pi/skills/outline/SKILL.md); "
        "`format-citations` (.pi/skills/format-citations/SKILL.md)."
    )
    assert "write-draft" in h.enforcer.state.loaded


async def test_the_top_down_path_is_silent_but_guided(harness):
    h = harness()
    compound = await h.read("publish-report")
    assert "Load each molecule only when you reach its step: `gather-sources`" in compound.text
    await h.read("gather-sources")
    atom = await h.call("bash", command="cat .pi/skills/extract-text/SKILL.md | head -50")
    assert h.notices() == []
    assert h.verdicts() == [
        ("publish-report", "ok"),
        ("gather-sources", "ok"),
        ("extract-text", "ok"),
    ]
    assert atom.text.rstrip().endswith(
        "[skill graph] Loaded atom `extract-text` for `gather-sources`; when it is done, go back "
        "to `gather-sources`."
    )
    assert atom.details["skill_load"]["how"] == "bash"
    assert atom.details["skill_load"]["via"] == "gather-sources"
    assert h.enforcer.state.chain == ["publish-report", "gather-sources", "extract-text"]


async def test_block_refuses_with_reason_and_suggestion(harness):
    h = harness(enforcer={"mode": "block"})
    refused = await h.read("outline")
    assert refused.is_error
    assert refused.text.startswith("Refused by the skill graph enforcer. The atom `outline`")
    assert "Start from the compound: `publish-report`" in refused.text
    assert "## Steps" not in refused.text  # nothing was read
    assert refused.details["skill_load"]["blocked"] is True
    assert "outline" not in h.enforcer.state.loaded
    assert h.notices() == []
    [event] = h.sink.events
    assert (event.type, event.verdict, event.blocked) == ("skill_load", "violation", True)
    assert event.suggestion.startswith("Start from the compound")
    for name in ("publish-report", "write-draft", "outline"):
        assert not (await h.read(name)).is_error
    assert h.verdicts()[1:] == [("publish-report", "ok"), ("write-draft", "ok"), ("outline", "ok")]
    derived = LoadingState.derive(h.messages)
    assert derived.history == h.enforcer.state.history and derived.loaded == h.enforcer.state.loaded
    assert [r.skill for r in derived.violations] == ["outline"]


async def test_block_refuses_a_whole_bash_command(harness):
    h = harness(enforcer={"mode": "block"})
    message = await h.call(
        "bash", command="cat .pi/skills/publish-report/SKILL.md .pi/skills/outline/SKILL.md"
    )
    assert message.is_error and "The atom `outline`" in message.text
    assert [r["skill"] for r in message.details["skill_loads"]] == ["publish-report", "outline"]
    assert h.enforcer.state.loaded == {}


async def test_block_still_only_warns_about_repeats(harness):
    h = harness(enforcer={"mode": "block"})
    await h.read("fetch-url")
    again = await h.read("fetch-url")
    assert not again.is_error
    assert h.notices() == [], "a repeat informs: it rides on the read, it stops nothing"
    assert (
        "\n\n[skill graph] Repeated skill load: `fetch-url` was already loaded 1 load ago.\n"
        "Its text is still in your context above: use it instead of loading it again."
    ) in again.text


async def test_off_is_silent(harness):
    h = harness(enforcer={"mode": "off"})
    message = await h.read("outline")
    assert not message.is_error and "[skill graph]" not in message.text
    assert "skill_load" not in message.details
    assert h.notices() == [] and h.sink.events == []


async def test_a_denied_skill_is_refused_in_every_mode(harness):
    for mode in ("warn", "block", "off"):
        h = harness(enforcer={"mode": mode}, skills={"deny": ["fetch-*"]})
        message = await h.read("fetch-url")
        assert message.is_error, mode
        assert "`fetch-url` is not allowed in this project: the project's settings deny it" in (
            message.text
        )
        assert h.verdicts() == [("fetch-url", "denied")]


async def test_a_cycle_through_the_hooks(harness):
    h = harness()
    for name in ("triage-bug", "reproduce-bug", "run-tests"):
        await h.read(name)
    again = await h.read("reproduce-bug")
    assert h.notices() == []
    assert "\n[skill graph] Skill loading cycle: `reproduce-bug` is already on" in again.text
    assert h.verdicts()[-1] == ("reproduce-bug", "cycle")


async def test_a_failed_read_loads_nothing(harness):
    h = harness()
    (h.root / ".pi/skills/outline/SKILL.md").unlink()
    message = await h.read("outline")  # a violation, had the file been there
    assert message.is_error and "skill_load" not in message.details
    assert "outline" not in h.enforcer.state.loaded
    assert h.notices() == [] and h.sink.events == []  # nobody is told of a load that failed


async def test_a_paged_read_of_a_loaded_skill_is_not_a_new_load(harness):
    h = harness()
    await h.read("fetch-url")
    await h.call("read", path=".pi/skills/fetch-url/SKILL.md", offset=20)
    assert h.notices() == [] and len(h.enforcer.state.history) == 1


async def test_reading_other_files_is_untouched(harness):
    h = harness()
    (h.root / "notes.md").write_text("hello")
    message = await h.call("read", path="notes.md")
    assert message.text == "hello" and "skill_load" not in message.details
    assert h.sink.events == []


async def test_state_derived_from_the_messages_equals_the_live_state(harness):
    h = harness()
    snapshots = []
    for name in (
        "write-draft",
        "triage-bug",
        "reproduce-bug",
        "run-tests",
        "extract-text",
        "run-tests",
        "pdf-tools",
    ):
        await h.read(name)
        snapshots.append(h.enforcer.state.copy())
    await h.call("bash", command="cat .pi/skills/gather-sources/SKILL.md")
    snapshots.append(h.enforcer.state.copy())
    for count, expected in enumerate(snapshots, start=1):
        derived = LoadingState.derive(h.messages[:count])
        assert derived.loaded == expected.loaded
        assert derived.chain == expected.chain
        assert derived.history == expected.history
        assert list(derived.recent) == list(expected.recent)
    await h.start(h.messages[:3], reason="fork")  # moving back in the tree restores that state
    assert h.enforcer.state.history == snapshots[2].history
    assert h.enforcer.state.chain == ["triage-bug", "reproduce-bug"]


async def test_guidance_and_suggestions_name_only_allowed_skills(harness):
    h = harness(skills={"deny": ["write-*", "gather-*"]})
    compound = await h.read("publish-report")
    guidance = compound.text.rsplit("[skill graph]", 1)[1]
    assert (
        guidance
        == " Loaded compound `publish-report`; it delegates to no molecule this project allows."
    )
    await h.read("extract-text")  # an atom under gather-sources (denied) and reproduce-bug
    [notice] = h.notices()
    assert "Start from the compound: `triage-bug`" in notice
    assert "then load the molecule `reproduce-bug`" in notice
    assert "gather-sources" not in notice and "publish-report" not in notice


async def test_a_molecule_whose_compounds_are_all_denied_has_no_route(harness):
    h = harness(skills={"deny": ["publish-*", "triage-*"]})
    await h.read("write-draft")
    [notice] = h.notices()
    assert "no compound this project allows delegates to it" in notice
    assert "publish-report" not in notice and "triage-bug" not in notice


async def test_a_partial_view_is_checked_but_a_full_read_after_it_is_no_repeat(harness):
    h = harness()
    await h.read("publish-report")
    peek = await h.call("bash", command="cat .pi/skills/gather-sources/SKILL.md | head -3")
    assert peek.details["skill_load"]["partial"] is True
    assert "Loaded molecule `gather-sources`" in peek.text  # checked and guided like any load
    whole = await h.read("gather-sources")
    assert h.verdicts()[-1] == ("gather-sources", "ok")
    assert h.notices() == []  # nobody claims its text is already in the context
    assert "## Orchestration" in whole.text
    assert "[skill graph] Loaded molecule `gather-sources`. Follow its steps" in whole.text
    assert [r.partial for r in h.enforcer.state.history] == [False, True, False]
    assert "gather-sources  [molecule, bash, partial]  ok (via publish-report)" in (
        h.enforcer.status()
    )
    derived = LoadingState.derive(h.messages)  # resuming the branch keeps the distinction
    assert derived.history == h.enforcer.state.history
    assert list(derived.recent) == list(h.enforcer.state.recent)
    again = await h.read("gather-sources")  # now its whole text is in the context: a repeat
    assert h.verdicts()[-1] == ("gather-sources", "repeat")
    assert "Its text is still in your context above" in again.text


async def test_a_read_with_a_limit_is_partial_unless_the_limit_covers_the_file(harness):
    h = harness()
    await h.read("fetch-url")
    window = await h.call("read", path=".pi/skills/run-tests/SKILL.md", limit=3)
    assert window.details["skill_load"]["partial"] is True
    await h.read("run-tests")
    assert h.verdicts() == [("fetch-url", "ok"), ("run-tests", "ok"), ("run-tests", "ok")]
    roomy = await h.call("read", path=".pi/skills/fetch-url/SKILL.md", limit=1000)
    assert roomy.details["skill_load"]["partial"] is False  # the limit showed the whole file
    assert h.verdicts()[-1] == ("fetch-url", "repeat")


async def test_a_partial_view_that_skips_a_layer_is_a_violation(harness):
    h = harness()
    await h.call("bash", command="head -5 .pi/skills/write-draft/SKILL.md")
    assert h.verdicts() == [("write-draft", "violation")]


async def test_block_refuses_a_partial_view_that_skips_a_layer(harness):
    h = harness(enforcer={"mode": "block"})
    refused = await h.call("bash", command="sed -n 1,5p .pi/skills/outline/SKILL.md")
    assert refused.is_error and refused.text.startswith("Refused by the skill graph enforcer.")
    assert refused.details["skill_load"]["partial"] is True
