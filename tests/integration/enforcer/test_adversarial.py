"""Graphs that break the rules, and awkward file names: the enforcer stays sensible."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.enforcer_harness import Harness
from support.skill_trees import Spec, load_set, write_skill

from workbench.enforcer.topology import render

BROKEN = {
    "skip-compound": Spec("compound", ("direct-atom", "good-molecule", "ghost")),
    "good-molecule": Spec("molecule", ("good-atom", "good-molecule", "other-molecule")),
    "other-molecule": Spec("molecule", ("good-molecule",)),
    "direct-atom": Spec("atom"),
    "good-atom": Spec("atom"),
    "selfish": Spec("compound", ("selfish",)),
}
"""A compound delegating straight to an atom and to a missing skill; molecules delegating to each
other and to themselves; a compound delegating to itself."""


@pytest.fixture
def broken(tmp_path):
    root = tmp_path / "broken"
    return Harness(root, {}, specs=BROKEN)


async def test_edges_that_skip_or_climb_a_layer_are_not_offered(broken):
    compound = await broken.read("skip-compound")
    assert "`good-molecule`" in compound.text.rsplit("[skill graph]", 1)[1]
    assert "direct-atom" not in compound.text.rsplit("[skill graph]", 1)[1]
    assert "ghost" not in compound.text.rsplit("[skill graph]", 1)[1]
    molecule = await broken.read("good-molecule")
    guidance = molecule.text.rsplit("[skill graph]", 1)[1]
    assert "`good-atom`" in guidance and "other-molecule" not in guidance
    prompt = await broken.system_prompt()
    assert "  - good-molecule: good-atom\n" in prompt
    assert "- selfish (" in prompt and "  - selfish" not in prompt


async def test_an_atom_reached_only_by_a_layer_skipping_edge_is_a_violation(broken):
    await broken.read("skip-compound")
    await broken.read("direct-atom")
    [notice] = broken.notices()
    assert "no molecule delegates to it and it is not marked standalone" in notice


async def test_molecules_delegating_to_each_other_do_not_loop_the_checker(broken):
    for name in ("skip-compound", "good-molecule", "other-molecule", "good-molecule"):
        await broken.read(name)
    assert broken.verdicts() == [
        ("skip-compound", "ok"),
        ("good-molecule", "ok"),
        ("other-molecule", "violation"),  # no compound delegates to it
        ("good-molecule", "repeat"),
    ]


async def test_a_compound_delegating_to_itself_is_only_an_entry_point(broken):
    await broken.read("selfish")
    await broken.read("selfish")
    assert broken.verdicts() == [("selfish", "ok"), ("selfish", "repeat")]


async def test_quoted_paths_with_spaces_and_unicode(tmp_path):
    h = Harness(tmp_path, {})
    write_skill(tmp_path / ".pi" / "skills", "ünï code", Spec(extra={"name": "odd-folder"}))
    assert h.enforcer.refresh()
    message = await h.call("bash", command="cat '.pi/skills/ünï code/SKILL.md'")
    assert message.details["skill_load"]["skill"] == "odd-folder"


def test_topology_of_each_real_corpus_is_bounded():
    corpora = Path(__file__).resolve().parents[4] / "shared" / "corpora"
    if not corpora.is_dir():
        pytest.skip("the shared corpora are not on this machine")
    for corpus in sorted(p for p in corpora.iterdir() if p.is_dir()):
        text = render(load_set(corpus).graph, lambda s: str(s.path))
        assert len(text.encode()) < 8000, corpus.name
        assert "<available_skills>" in text, corpus.name
