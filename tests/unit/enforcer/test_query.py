"""prime_query: what scope and tags match, the ranking, the levels and the budget."""

from __future__ import annotations

import pytest
from skill_trees import write_tree

from workbench.enforcer.allowlist import Allowlist
from workbench.enforcer.query import QueryError, prime_query
from workbench.skills.projection import token_ceiling


@pytest.fixture
def graph(tmp_path):
    return write_tree(tmp_path / "skills")


OPEN = Allowlist()


def ask(graph, allowlist=OPEN, **kwargs):
    return prime_query(graph, lambda s: s.name, allowlist.allows, **kwargs)


def test_layer_scopes_rank_by_name(graph):
    answer = ask(graph, scope="compound")
    assert answer.shown == [("publish-report", "summary"), ("triage-bug", "summary")]
    assert answer.text.startswith("2 skills match (scope 'compound'); 2 shown")
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
    blocks = answer.text.split("\n\n")
    assert sum(token_ceiling(b) + 1 for b in blocks[1:-1]) <= 300
    assert "more matched but did not fit" in blocks[-1]
    assert answer.matched == 12


def test_a_skill_too_big_for_the_level_is_given_smaller(graph):
    answer = ask(graph, scope="skill:publish-report", level="full", budget_tokens=60)
    assert answer.shown == [("publish-report", "summary")]


def test_denied_skills_never_show(graph):
    answer = ask(graph, Allowlist(deny=("triage-*",)), scope="compound")
    assert [n for n, _ in answer.shown] == ["publish-report"]


def test_bad_scope_and_level_say_what_is_accepted(graph):
    with pytest.raises(QueryError, match='scope is "", "all"'):
        ask(graph, scope="nonsense")
    with pytest.raises(QueryError, match="level is summary, core or full"):
        ask(graph, level="huge")
