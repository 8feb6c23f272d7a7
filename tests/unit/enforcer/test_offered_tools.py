"""Which of its tools the enforcer offers: none without skills, activation when there is a skill
to activate, prime_query only when the prompt cannot list every skill."""

from __future__ import annotations

from pathlib import Path

from support.skill_trees import EXAMPLE, Spec, graph_in_memory

from workbench.config import Settings
from workbench.enforcer.reload import LiveSkills
from workbench.enforcer.skill_view import SkillView
from workbench.skills.discover import SkillSet
from workbench.skills.graph import SkillGraph


def view_of(graph: SkillGraph, tmp_path: Path) -> SkillView:
    return SkillView(LiveSkills(lambda: SkillSet(graph, [], len(graph), ())), Settings(tmp_path))


def test_no_skills_no_skill_tools(tmp_path: Path) -> None:
    assert view_of(SkillGraph([]), tmp_path).useful_tools == frozenset()


def test_a_graph_the_prompt_lists_whole_needs_no_prime_query(tmp_path: Path) -> None:
    reachable = {name: spec for name, spec in EXAMPLE.items() if name != "lonely-molecule"}
    tools = view_of(graph_in_memory(tmp_path, reachable), tmp_path).useful_tools
    assert tools == {"skill_activate", "skill_deactivate"}


def test_a_skill_the_prompt_leaves_out_is_found_with_prime_query(tmp_path: Path) -> None:
    tools = view_of(graph_in_memory(tmp_path, EXAMPLE), tmp_path).useful_tools
    assert "prime_query" in tools, "lonely-molecule is in no compound's tree"


def test_a_graph_larger_than_the_prompt_gets_prime_query(tmp_path: Path) -> None:
    specs = {f"skill-{n:04}": Spec(None, description=f"Does task {n} well.") for n in range(600)}
    tools = view_of(graph_in_memory(tmp_path, specs), tmp_path).useful_tools
    assert tools == {"skill_activate", "skill_deactivate", "prime_query"}


def test_a_project_that_allows_no_skill_gets_no_skill_tools(tmp_path: Path) -> None:
    graph = graph_in_memory(tmp_path, EXAMPLE)
    view = SkillView(
        LiveSkills(lambda: SkillSet(graph, [], len(graph), ())),
        Settings(tmp_path, {"skills": {"deny": ["*"]}}),
    )
    assert view.useful_tools == frozenset()
