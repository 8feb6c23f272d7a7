"""The top-down check: every verdict, with the words the model is given."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.skill_trees import write_tree

from workbench.enforcer.state import LoadingState, LoadRecord
from workbench.enforcer.verdict import Checker
from workbench.skills.graph import SkillGraph


@pytest.fixture
def graph(tmp_path: Path) -> SkillGraph:
    return write_tree(tmp_path / "skills")


@pytest.fixture
def checker(graph: SkillGraph, tmp_path: Path) -> Checker:
    return Checker(graph, lambda s: str(s.path.relative_to(tmp_path)))


def load(checker: Checker, state: LoadingState, name: str) -> str:
    """Check `name`, apply the load as the enforcer does, and return the verdict's kind."""
    skill = checker.graph.get(name)
    verdict = checker.check(skill, state)
    state.apply(LoadRecord(name, skill.layer, verdict.kind, "read", via=verdict.via))
    return verdict.kind


def test_the_top_down_path_is_ok(checker):
    state = LoadingState()
    path = ("publish-report", "gather-sources", "extract-text")
    assert [load(checker, state, n) for n in path] == ["ok", "ok", "ok"]
    assert state.chain == ["publish-report", "gather-sources", "extract-text"]
    assert state.active_compound == "publish-report"


def test_a_compound_is_always_an_entry_point(checker):
    state = LoadingState()
    load(checker, state, "publish-report")
    assert load(checker, state, "triage-bug") == "ok"
    assert state.chain == ["triage-bug"]


def test_a_molecule_without_its_compound_names_every_compound_to_load(checker):
    verdict = checker.check(checker.graph.get("write-draft"), LoadingState())
    assert verdict.kind == "violation"
    assert "molecule `write-draft`" in verdict.reason
    assert "skipped the compound layer" in verdict.reason
    assert "`publish-report` (skills/publish-report/SKILL.md)" in verdict.suggestion
    assert "`triage-bug` (skills/triage-bug/SKILL.md)" in verdict.suggestion
    assert "tells you when to load `write-draft`" in verdict.suggestion


def test_an_atom_without_anything_above_gets_the_whole_route(checker):
    verdict = checker.check(checker.graph.get("outline"), LoadingState())
    assert verdict.kind == "violation"
    assert "atom `outline`" in verdict.reason and "skipped the molecule layer" in verdict.reason
    assert verdict.suggestion == (
        "Start from the compound: `publish-report` (skills/publish-report/SKILL.md) or "
        "`triage-bug` (skills/triage-bug/SKILL.md); then load the molecule `write-draft` "
        "(skills/write-draft/SKILL.md), which tells you when to use `outline`."
    )


def test_an_atom_whose_compound_is_loaded_asks_for_the_molecule(checker):
    state = LoadingState()
    load(checker, state, "triage-bug")
    verdict = checker.check(checker.graph.get("format-citations"), state)
    assert verdict.kind == "violation"
    assert verdict.suggestion.startswith("Load the molecule first: `write-draft`")


def test_an_atom_of_a_loaded_molecule_is_ok_via_that_molecule(checker):
    state = LoadingState()
    load(checker, state, "triage-bug")
    load(checker, state, "reproduce-bug")
    verdict = checker.check(checker.graph.get("extract-text"), state)
    assert (verdict.kind, verdict.via) == ("ok", "reproduce-bug")


def test_a_standalone_atom_may_be_loaded_directly(checker):
    assert checker.check(checker.graph.get("fetch-url"), LoadingState()).kind == "ok"
    assert checker.check(checker.graph.get("run-tests"), LoadingState()).kind == "ok"


def test_a_molecule_no_compound_reaches_says_so(checker):
    verdict = checker.check(checker.graph.get("lonely-molecule"), LoadingState())
    assert verdict.kind == "violation"
    assert "no compound delegates to it" in verdict.reason
    assert "only if the user asks for it by name" in verdict.suggestion


def test_an_unlayered_skill_is_not_interfered_with(checker):
    assert checker.check(checker.graph.get("pdf-tools"), LoadingState()).kind == "ok"


def test_a_skill_on_the_current_chain_is_a_cycle(checker):
    state = LoadingState()
    for name in ("publish-report", "gather-sources", "extract-text"):
        load(checker, state, name)
    verdict = checker.check(checker.graph.get("gather-sources"), state)
    assert verdict.kind == "cycle"
    assert "publish-report → gather-sources → extract-text" in verdict.reason
    assert "continue from where you are in `extract-text`" in verdict.suggestion
    load(checker, state, "gather-sources")
    assert state.chain == ["publish-report", "gather-sources"]


def test_a_skill_loaded_again_within_ten_loads_is_a_repeat(checker):
    state = LoadingState()
    for name in ("publish-report", "gather-sources", "fetch-url", "extract-text"):
        load(checker, state, name)
    load(checker, state, "write-draft")  # fetch-url left the chain
    verdict = checker.check(checker.graph.get("fetch-url"), state)
    assert verdict.kind == "repeat"
    assert verdict.reason == "`fetch-url` was already loaded 3 loads ago."


def test_a_load_more_than_ten_loads_back_is_no_repeat(checker):
    state = LoadingState()
    load(checker, state, "fetch-url")
    for _ in range(5):
        load(checker, state, "publish-report")
        load(checker, state, "triage-bug")
    assert checker.check(checker.graph.get("fetch-url"), state).kind == "ok"


def test_a_violation_outranks_a_repeat(checker):
    state = LoadingState()
    load(checker, state, "outline")
    assert checker.check(checker.graph.get("outline"), state).kind == "violation"
