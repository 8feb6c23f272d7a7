"""prime_query: what scope and tags match, the ranking, the levels and the budget."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.skill_trees import write_tree
from support.tokens import cl100k

from workbench.enforcer.allowlist import Allowlist
from workbench.enforcer.query import QueryError, prime_query
from workbench.skills.discover import SkillRoot, load_skills
from workbench.skills.projection import token_ceiling

EXAMPLE = Path(__file__).resolve().parents[3] / "skills"
SHIP_ORDER = [
    "compound-ship-change",
    "molecule-plan-change",
    "molecule-implement-change",
    "molecule-verify-change",
    "molecule-land-change",
    *("atom-inspect-repo", "atom-find-code", "atom-write-plan"),  # under molecule-plan-change
    *("atom-create-branch", "atom-edit-code", "atom-run-tests"),  # new under implement-change
    *("atom-run-linters", "atom-review-diff"),  # new under molecule-verify-change
    *("atom-commit-changes", "atom-sync-branch", "atom-merge-branch"),  # new under land-change
]
"""The example graph's delegation order under its compound, breadth-first (as its files say)."""


@pytest.fixture
def graph(tmp_path):
    return write_tree(tmp_path / "skills")


OPEN = Allowlist()


def ask(graph, allowlist=OPEN, **kwargs):
    return prime_query(graph, lambda s: s.name, allowlist.allows, **kwargs)


@pytest.fixture(scope="module")
def example():
    return load_skills([SkillRoot(EXAMPLE, "explicit")], use_cache=False).graph


def ask_example(example, **kwargs):
    return prime_query(example, lambda s: f"skills/{s.name}/SKILL.md", OPEN.allows, **kwargs)


def test_layer_scopes_rank_by_name(graph):
    answer = ask(graph, scope="compound")
    assert answer.shown == [("publish-report", "summary"), ("triage-bug", "summary")]
    assert answer.text.startswith("2 skills match 'compound'; 2 shown (summary)")
    assert [n for n, _ in ask(graph, scope="standalone").shown] == ["fetch-url", "run-tests"]
    assert [n for n, _ in ask(graph, scope="unlayered").shown] == ["pdf-tools"]


def test_under_scope_follows_the_delegation_top_down(graph):
    answer = ask(graph, scope="compound:triage-bug", level="core", budget_tokens=5000)
    assert [n for n, _ in answer.shown] == [
        "triage-bug",
        "reproduce-bug",
        "write-draft",
        "run-tests",
        "extract-text",
        "outline",
        "format-citations",
    ]
    assert all(level == "core" for _, level in answer.shown)


def test_focus_ranks_name_hits_first_then_layer(graph):
    names = [n for n, _ in ask(graph, scope="focus:draft outline").shown]
    assert names == ["write-draft", "outline"]  # equal hits: the molecule before the atom
    everything = [n for n, _ in ask(graph, scope="focus:tests", budget_tokens=5000).shown]
    assert everything[0] == "run-tests"  # a name hit beats the description hits of the rest
    assert len(everything) == 12


def test_tags_match_declared_tags_layer_and_name_words(graph):
    assert [n for n, _ in ask(graph, tags=["PDF"]).shown] == ["pdf-tools"]
    assert [n for n, _ in ask(graph, tags=["writing"]).shown] == ["publish-report"]
    assert [n for n, _ in ask(graph, tags=["molecule"], scope="all").shown] == [
        "gather-sources",
        "lonely-molecule",
        "reproduce-bug",
        "write-draft",
    ]
    assert [n for n, _ in ask(graph, tags=["bug"]).shown] == ["triage-bug", "reproduce-bug"]


def test_the_answer_fits_the_budget_and_names_what_did_not(graph):
    answer = ask(graph, scope="all", level="core", budget_tokens=300)
    assert token_ceiling(answer.text) <= 300
    assert answer.text.splitlines()[-1].startswith(f"{12 - len(answer.shown)} more not shown: ")
    assert answer.matched == 12


@pytest.mark.parametrize("level", ["summary", "core", "full"])
@pytest.mark.parametrize("budget", [120, 200, 400, 900])
def test_everything_returned_counts_against_the_budget_in_real_tokens(example, level, budget):
    answer = ask_example(
        example, scope="under:compound-ship-change", level=level, budget_tokens=budget
    )
    assert cl100k(answer.text) <= budget
    assert answer.shown[0][0] == "compound-ship-change"


@pytest.mark.parametrize("budget", [120, 200, 300, 450, 800])
def test_under_scope_fills_top_down_and_stops_instead_of_skipping(example, budget):
    answer = ask_example(example, scope="under:compound-ship-change", budget_tokens=budget)
    names = [name for name, _ in answer.shown]
    assert names == SHIP_ORDER[: len(names)]  # no molecule is passed over for an atom
    following = SHIP_ORDER[len(names)]
    closing = answer.text.splitlines()[-1]
    assert closing.startswith(f"{16 - len(names)} more not shown")
    assert f':{following}").' in closing  # the narrower scope it suggests starts there


def test_the_hint_suggests_what_would_help_at_the_asked_level(example):
    summary = ask_example(example, scope="under:compound-ship-change", budget_tokens=200)
    assert 'level "summary"' not in summary.text
    assert "Raise budget_tokens or narrow the scope" in summary.text
    assert '(e.g. "under:molecule-' in summary.text
    core = ask_example(example, scope="under:compound-ship-change", level="core", budget_tokens=300)
    assert 'ask for level "summary"' in core.text


def test_a_budget_too_small_for_any_answer_says_how_much_is_needed(example):
    with pytest.raises(QueryError, match=r"budget_tokens 20 is too small .* at least \d+"):
        ask_example(example, scope="under:compound-ship-change", budget_tokens=20)


def test_a_skill_too_big_for_the_level_is_given_smaller(graph):
    answer = ask(graph, scope="skill:publish-report", level="full", budget_tokens=80)
    assert answer.shown == [("publish-report", "summary")]


def test_denied_skills_never_show(graph):
    answer = ask(graph, Allowlist(deny=("triage-*",)), scope="compound")
    assert [n for n, _ in answer.shown] == ["publish-report"]


def test_bad_scope_and_level_say_what_is_accepted(graph):
    with pytest.raises(QueryError, match='scope is "", "all"'):
        ask(graph, scope="nonsense")
    with pytest.raises(QueryError, match="level is summary, core or full"):
        ask(graph, level="huge")
