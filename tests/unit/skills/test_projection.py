"""Projections: summary and core within their budgets, kind-aware per layer, deterministic."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.skill_trees import Spec, write_skill, write_tree

from workbench.skills.discover import SkillRoot, load_skills
from workbench.skills.projection import (
    TARGET_TOKENS,
    estimate_tokens,
    first_sentence,
    fit,
    project,
    purpose,
    sections,
    skill_tags,
)

EXAMPLE = Path(__file__).resolve().parents[3] / "skills"


def assert_cut_between_words(shown: str, source: str) -> None:
    """`shown` is `source` whole, or a start of it ending between two words, then "…"."""
    if not shown.endswith("…"):
        assert shown == source
        return
    kept = shown.removesuffix("…")
    assert source.startswith(kept), (shown, source)
    around = kept[-1:] + source[len(kept)]  # a hyphen or an apostrophe is inside a word
    assert not re.fullmatch(r"[A-Za-z0-9_'-]{2}", around), f"cut mid-word: {shown}"


@pytest.fixture
def graph(tmp_path):
    return write_tree(tmp_path / "skills")


@pytest.mark.parametrize("name", ["publish-report", "gather-sources", "outline", "pdf-tools"])
def test_bounded_levels_fit_their_budgets(graph, name):
    skill = graph.get(name)
    assert estimate_tokens(project(skill, "summary")) <= TARGET_TOKENS["summary"]
    assert estimate_tokens(project(skill, "core")) <= TARGET_TOKENS["core"]
    assert project(skill, "core").startswith(project(skill, "summary"))
    assert skill.body.strip() in project(skill, "full")


def test_core_is_kind_aware(graph):
    atom = project(graph.get("outline"), "core")
    assert "Inputs: A URL or a file path" in atom and "Outputs: Plain text" in atom
    molecule = project(graph.get("gather-sources"), "core")
    assert "delegates to atoms: fetch-url, extract-text" in molecule
    assert "Outputs: A short report" in molecule and "Inputs:" not in molecule
    compound = project(graph.get("publish-report"), "core")
    assert "delegates to molecules: gather-sources, write-draft" in compound
    assert "Human decisions: Ask the user one question at a time" in compound
    assert "Done when: The user accepts the result." in compound
    plain = project(graph.get("pdf-tools"), "core")
    assert "When to use: When the task mentions pdf-tools." in plain


def test_summary_has_description_tags_and_purpose(graph):
    assert project(graph.get("pdf-tools"), "summary") == (
        "pdf-tools (skill): Does pdf tools.\ntags: pdf, documents\n"
        "purpose: Handle pdf tools step by step."
    )
    assert project(graph.get("run-tests"), "summary").startswith("run-tests (standalone atom):")


def test_example_summaries_keep_description_and_purpose_cut_between_words():
    graph = load_skills([SkillRoot(EXAMPLE, "explicit")], use_cache=False).graph
    assert len(graph) == 16
    for skill in graph.skills.values():
        summary = project(skill, "summary")
        assert estimate_tokens(summary) <= TARGET_TOKENS["summary"]
        head, purpose_line = summary.splitlines()
        prefix = f"{skill.name} ({'standalone ' if skill.standalone else ''}{skill.layer}): "
        assert head.startswith(prefix)
        assert_cut_between_words(head.removeprefix(prefix), first_sentence(skill.description))
        assert len(head.removeprefix(prefix).split()) >= 5  # the description still says something
        assert purpose_line.startswith("purpose: ")
        assert_cut_between_words(purpose_line.removeprefix("purpose: "), purpose(skill))
        assert len(purpose_line.split()) >= 5


@pytest.mark.parametrize("tokens", range(2, 12))
def test_fit_never_cuts_a_word(tokens):
    text = "Merge the change-branch into main's history, keeping a step-by-step record."
    assert_cut_between_words(fit(text, tokens), text)
    assert estimate_tokens(fit(text, tokens)) <= tokens


def test_chinese_section_names_are_understood(tmp_path):
    body = (
        "## 用途\n抓取一个网页。\n\n## 输入\n一个 URL。\n\n## 执行步骤\n1. 下载。\n\n"
        "## 输出\n网页正文。\n\n## 错误处理\n报告失败的 URL。"
    )
    skill = write_skill(tmp_path, "atom-fetch", Spec("atom", body=body))
    assert purpose(skill) == "抓取一个网页。"
    core = project(skill, "core")
    assert "Inputs: 一个 URL。" in core and "Outputs: 网页正文。" in core


def test_long_text_is_cut_at_a_word_with_an_ellipsis(tmp_path):
    long = "This skill " + "does a great many careful things " * 80
    skill = write_skill(tmp_path, "wordy", Spec(description=long, body="## Overview\n" + long))
    summary = project(skill, "summary")
    assert estimate_tokens(summary) <= TARGET_TOKENS["summary"]
    assert summary.endswith("…")
    assert estimate_tokens(project(skill, "core")) <= TARGET_TOKENS["core"]
    assert fit("short text", 10) == "short text"


def test_projections_are_deterministic(tmp_path):
    first = write_tree(tmp_path / "a")
    second = write_tree(tmp_path / "b")
    for name in first.skills:
        for level in ("summary", "core", "full"):
            assert project(first.get(name), level) == project(second.get(name), level)


def test_sections_skip_headings_inside_code_fences():
    body = "## Steps\n```\n## not a heading\n```\n## Outputs\nText."
    assert [s.title for s in sections(body)] == ["Steps", "Outputs"]


def test_tags_from_a_list_a_string_or_metadata(tmp_path):
    listed = write_skill(tmp_path, "a", Spec(extra={"tags": ["PDF", "docs", "pdf"]}))
    spaced = write_skill(tmp_path, "b", Spec(extra={"metadata": {"tags": "one, two"}}))
    assert skill_tags(listed) == ("pdf", "docs")
    assert skill_tags(spaced) == ("one", "two")


def test_unknown_level_is_an_error(graph):
    with pytest.raises(ValueError, match="levels are summary, core, full"):
        project(graph.get("outline"), "medium")


def test_estimate_counts_cjk_as_a_token_a_character():
    assert estimate_tokens("abcd" * 10) == 10
    assert estimate_tokens("网页正文") == 4
