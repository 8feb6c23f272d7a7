"""The offline demo model follows the skill graph through the real read tool."""

from __future__ import annotations

import textwrap
from pathlib import Path

from workbench.agent.events import Event, ToolExecutionEnd
from workbench.agent.loop import SKIPPED_FOR_STEERING, Agent
from workbench.agent.models.demo import DemoModel
from workbench.agent.store import MemoryStore
from workbench.agent.tools import builtin_tools
from workbench.messages import Message
from workbench.skills.discover import SkillRoot, load_skills

SKILLS = {
    "compound-bake-bread": (
        "compound",
        "Bake a loaf of bread from flour to crust.",
        "molecule-knead-dough molecule-shape-loaf",
    ),
    "compound-fix-bike": (
        "compound",
        "Repair a bicycle puncture and adjust brakes.",
        "molecule-patch-tyre",
    ),
    "molecule-knead-dough": (
        "molecule",
        "Knead bread dough until it is smooth.",
        "atom-measure-flour atom-add-water",
    ),
    "molecule-shape-loaf": ("molecule", "Shape the loaf before baking.", "atom-add-water"),
    "molecule-patch-tyre": ("molecule", "Patch an inner tube.", "atom-find-hole"),
    "atom-measure-flour": ("atom", "Weigh flour for bread.", ""),
    "atom-add-water": ("atom", "Add water to the dough.", ""),
    "atom-find-hole": ("atom", "Find the hole in a tube.", ""),
}


def write_skills(root: Path) -> None:
    for name, (layer, description, children) in SKILLS.items():
        folder = root / name
        folder.mkdir(parents=True)
        delegates = f'\n  delegates-to: "{children}"' if children else ""
        folder.joinpath("SKILL.md").write_text(
            textwrap.dedent(
                f"""\
                ---
                name: {name}
                description: {description}
                metadata:
                  layer: {layer}{{delegates}}
                ---

                # {name}

                The {name} body explains how to {description.lower()}
                """
            ).replace("{delegates}", delegates)
        )


def demo_agent(skills: Path, cwd: Path) -> Agent:
    """The loop with the demo model over the skills in `skills` and the real tools."""
    graph = load_skills([SkillRoot(skills, "explicit")], use_cache=False).graph
    return Agent(
        model=DemoModel(lambda: graph, lambda: cwd),
        tools=builtin_tools(),
        store=MemoryStore(),
        emit=lambda event: None,
        cwd=cwd,
    )


async def test_demo_reads_compound_then_molecule_then_atoms(tmp_path: Path) -> None:
    write_skills(tmp_path / "skills")
    agent = demo_agent(tmp_path / "skills", tmp_path)
    assert (
        await agent.start([Message(role="user", text="how do I knead bread dough?")]) == "completed"
    )
    reads = [
        [c.arguments["path"] for c in m.tool_calls] for m in agent.state.messages if m.tool_calls
    ]
    assert reads == [
        ["skills/compound-bake-bread/SKILL.md"],
        ["skills/molecule-knead-dough/SKILL.md"],
        ["skills/atom-measure-flour/SKILL.md", "skills/atom-add-water/SKILL.md"],
    ]
    results = [m for m in agent.state.messages if m.role == "tool_result"]
    assert all(not r.is_error for r in results)
    answer = agent.state.messages[-1].text
    assert answer.startswith("(offline demo)")
    assert "**atom** `atom-add-water`: The atom-add-water body explains how to add water" in answer
    assert "--model" in answer


async def test_demo_without_compounds_explains_itself(tmp_path: Path) -> None:
    agent = demo_agent(tmp_path, tmp_path)
    await agent.start([Message(role="user", text="hello")])
    assert "found no compound skills" in agent.state.messages[-1].text


async def test_a_read_skipped_for_steering_is_made_for_the_next_prompt_and_nothing_else(
    tmp_path: Path,
) -> None:
    """The user steers while the atoms are read: the second atom's read is skipped. For the
    steering message the demo reads only that atom; what it read before stays read."""
    write_skills(tmp_path / "skills")
    agent = demo_agent(tmp_path / "skills", tmp_path)

    steered: list[Message] = []

    def steer_after_first_atom(event: Event) -> None:
        first_atom = isinstance(event, ToolExecutionEnd) and "measure-flour" in event.args["path"]
        if first_atom and not steered:
            steered.append(Message(role="user", text="bread dough: knead it, please"))
            agent.steering.push(steered[0])

    agent.state.emit = steer_after_first_atom
    await agent.start([Message(role="user", text="how do I knead bread dough?")])

    results = [m for m in agent.state.messages if m.role == "tool_result"]
    assert [r.text for r in results if r.is_error] == [SKIPPED_FOR_STEERING]
    steering = max(i for i, m in enumerate(agent.state.messages) if m.role == "user")
    reads = [c.arguments["path"] for m in agent.state.messages[steering:] for c in m.tool_calls]
    assert reads == ["skills/atom-add-water/SKILL.md"]
    answer = agent.state.messages[-1].text
    assert "`compound-bake-bread` (read earlier)" in answer
    assert "`atom-add-water`: The atom-add-water body" in answer


async def test_the_demo_streams_a_reply_at_a_human_pace_that_settings_set(
    tmp_path: Path, monkeypatch
) -> None:
    import time

    from workbench.agent.models.choice import demo_pace
    from workbench.agent.models.client import ModelRequest, TextDelta

    write_skills(tmp_path / "skills")
    graph = load_skills([SkillRoot(tmp_path / "skills", "explicit")], use_cache=False).graph
    model = DemoModel(lambda: graph, lambda: tmp_path, pace=0.4)
    request = ModelRequest("system", [Message(role="user", text="knead bread dough")])
    arrivals = []
    async for delta in model.stream(request):
        if isinstance(delta, TextDelta):
            arrivals.append(time.monotonic())
    assert len(arrivals) > 5 and arrivals[-1] - arrivals[0] >= 0.3, "a visible stream"

    monkeypatch.delenv("WORKBENCH_DEMO_PACE")
    assert demo_pace({}) == 1.0 and demo_pace({"pace": 0.25}) == 0.25
    monkeypatch.setenv("WORKBENCH_DEMO_PACE", "0")
    assert demo_pace({"pace": 2}) == 0.0, "off in tests"
