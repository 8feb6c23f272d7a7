"""The skills section of the system prompt: complete when small, bounded when huge, stable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.skill_trees import EXAMPLE, Spec, graph_in_memory, layered_specs, write_tree

from workbench.config import Settings
from workbench.enforcer.allowlist import Allowlist
from workbench.enforcer.settings import budget_of
from workbench.enforcer.topology import (
    DEFAULT_BUDGET_TOKENS,
    MAX_BYTES,
    MIN_BUDGET_TOKENS,
    Hints,
    render,
)
from workbench.errors import WorkbenchError
from workbench.skills.projection import token_ceiling


def where_in(root: Path):
    return lambda skill: str(skill.path.relative_to(root))


def test_small_graph_shows_the_whole_tree_rules_and_template(tmp_path):
    text = render(write_tree(tmp_path / "skills"), where_in(tmp_path))
    assert (
        "- publish-report (skills/publish-report/SKILL.md): Does publish report.\n"
        "  - gather-sources: fetch-url, extract-text\n"
        "  - write-draft: outline, format-citations\n"
    ) in text
    assert "### Standalone skills (may be loaded directly)\nfetch-url, run-tests" in text
    for rule in (
        "1. Start from a compound",
        "2. Do not skip a layer",
        "3. Load on demand",
        "4. Do not load a skill twice",
    ):
        assert rule in text
    assert "### Loading template\n1. read <compound>/SKILL.md" in text
    assert "<name>pdf-tools</name>" in text and "<location>skills/pdf-tools/SKILL.md" in text
    assert "lonely-molecule" not in text  # unreachable, and not standalone


def test_rendering_is_byte_identical_for_the_same_skill_set(tmp_path):
    first = render(write_tree(tmp_path / "a"), where_in(tmp_path / "a"))
    again = render(write_tree(tmp_path / "b"), where_in(tmp_path / "b"))
    assert first.encode() == again.encode()


def test_denied_skills_are_left_out(tmp_path):
    graph = write_tree(tmp_path / "skills")
    text = render(graph, where_in(tmp_path), Allowlist(deny=("triage-*", "pdf-*")))
    assert "triage-bug" not in text and "pdf-tools" not in text
    assert "publish-report" in text


def test_no_skills_no_section(tmp_path):
    assert render(write_tree(tmp_path / "s", {}), where_in(tmp_path)) == ""


@pytest.mark.parametrize("compounds", [40, 400, 2000])
def test_big_graphs_stay_within_budget_and_under_8_kb(tmp_path, compounds):
    graph = graph_in_memory(tmp_path, layered_specs(compounds))
    text = render(graph, where_in(tmp_path))
    assert token_ceiling(text) <= DEFAULT_BUDGET_TOKENS
    assert len(text.encode()) < MAX_BYTES
    assert "prime_query(" in text  # tells the model how to see the rest
    assert "1. Start from a compound" in text and "### Loading template" in text


def test_ten_thousand_skills(tmp_path):
    graph = graph_in_memory(tmp_path, layered_specs(770))  # 770 compounds: 10,010 skills
    assert len(graph) == 10_010
    text = render(graph, where_in(tmp_path))
    assert len(text.encode()) < 8 * 1024
    assert token_ceiling(text) <= DEFAULT_BUDGET_TOKENS
    assert "- c0 (c0/SKILL.md): Does c0. [3 molecules, 9 atoms]" in text
    assert 'more compounds: prime_query(scope="compound", level="summary") lists them' in text
    assert render(graph, where_in(tmp_path)) == text


def test_without_the_enforcers_tools_the_section_does_not_mention_them(tmp_path):
    graph = graph_in_memory(tmp_path, layered_specs(770))
    unlayered = graph_in_memory(
        tmp_path / "u", {f"s{n}": Spec(description="Word " * 60) for n in range(900)}
    )
    hints = Hints.for_tools(["read", "bash"])
    for text in (
        render(graph, where_in(tmp_path), hints=hints),
        render(unlayered, str, hints=hints),
    ):
        assert "prime_query" not in text and "skill_activate" not in text
        assert "more " in text and "not listed here" in text  # the model still hears of the rest
        assert token_ceiling(text) <= DEFAULT_BUDGET_TOKENS
    assert Hints.for_tools(None) == Hints() == Hints.for_tools(["prime_query", "skill_activate"])


def test_less_detail_before_fewer_compounds(tmp_path):
    graph = graph_in_memory(tmp_path, layered_specs(50))
    text = render(graph, where_in(tmp_path))
    assert "  - m0-0 [3 atoms]" in text  # molecules kept, atoms counted
    assert "- c49 (" in text  # every compound still listed
    assert "150 skills may be loaded directly" in text


def test_a_smaller_budget_gives_less_detail(tmp_path):
    graph = write_tree(tmp_path / "skills", {k: v for k, v in EXAMPLE.items() if v.layer})
    roomy = render(graph, where_in(tmp_path), budget_tokens=2000)
    tight = render(graph, where_in(tmp_path), budget_tokens=430)
    assert "gather-sources: fetch-url, extract-text" in roomy
    assert "gather-sources: fetch-url" not in tight
    assert "more compounds: prime_query(" in tight
    assert token_ceiling(tight) <= 430


def test_a_huge_unlayered_corpus_is_listed_within_bounds(tmp_path):
    specs = {f"skill-{n:05d}": Spec(description="Word " * 60) for n in range(5000)}
    text = render(graph_in_memory(tmp_path, specs), where_in(tmp_path))
    assert len(text.encode()) < MAX_BYTES
    assert token_ceiling(text) <= DEFAULT_BUDGET_TOKENS
    assert "<name>skill-00000</name>" in text
    assert "more skills are not listed here: find them with prime_query(" in text


def test_layered_and_unlayered_share_the_budget(tmp_path):
    specs = {**layered_specs(300), **{f"tool-{n}": Spec(description="x " * 50) for n in range(900)}}
    text = render(graph_in_memory(tmp_path, specs), where_in(tmp_path))
    assert len(text.encode()) < MAX_BYTES
    assert token_ceiling(text) <= DEFAULT_BUDGET_TOKENS
    assert "### Compounds (entry points)" in text and "<available_skills>" in text


MIXED_SHAPES = {
    "example": lambda: EXAMPLE,
    "mixed": lambda: {
        **layered_specs(12),
        **{f"tool-{n}": Spec(description="y " * 10) for n in range(40)},
    },
}


@pytest.mark.parametrize("shape", sorted(MIXED_SHAPES))
def test_every_accepted_budget_is_kept(tmp_path, shape):
    """The rules and template alone take about 400 tokens: a budget is accepted only from
    MIN_BUDGET_TOKENS up, and from there on the section never exceeds it, layered and unlayered
    parts together (joined by a blank line, which costs a token of its own)."""
    graph = graph_in_memory(tmp_path, MIXED_SHAPES[shape]())
    for budget in range(MIN_BUDGET_TOKENS, DEFAULT_BUDGET_TOKENS + 1):
        text = render(graph, where_in(tmp_path), budget_tokens=budget)
        assert token_ceiling(text) <= budget, budget


@pytest.mark.parametrize("value", [MIN_BUDGET_TOKENS - 1, "2000", 2.5, True])
def test_budgets_the_section_cannot_keep_are_refused(tmp_path, value):
    (tmp_path / ".pi").mkdir()
    (tmp_path / ".pi" / "settings.json").write_text(
        json.dumps({"enforcer": {"prompt_budget_tokens": value}})
    )
    with pytest.raises(WorkbenchError, match=f"at least {MIN_BUDGET_TOKENS}"):
        budget_of(Settings.load(tmp_path))
