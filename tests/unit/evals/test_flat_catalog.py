"""The flat catalog offers every skill as name, description and location, with no topology."""

from __future__ import annotations

from pathlib import Path

from support.skill_trees import write_tree

from workbench.enforcer.topology import render, render_flat


def test_the_flat_catalog_lists_every_layer_without_the_graph(tmp_path: Path) -> None:
    graph = write_tree(tmp_path)
    where = lambda skill: str(skill.path)  # noqa: E731
    flat = render_flat(graph, where)
    for name in ("publish-report", "gather-sources", "fetch-url", "pdf-tools"):
        assert f"<name>{name}</name>" in flat
    assert "<location>" in flat and "Skill graph" not in flat and "Rules" not in flat
    assert "## Skill graph" in render(graph, where)  # the graph's own rendering is unchanged
