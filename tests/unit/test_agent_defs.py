"""Agent definition files: fields, scopes, the nearest project folder, and reported problems."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.agent.subagents.agent_files import AgentProblem, discover_agents, parse_agent
from workbench.config import agent_dir


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_full_definition(tmp_path: Path) -> None:
    path = write(
        tmp_path / "scout.md",
        "---\nname: scout\ndescription: >\n  Fast search,\n  read only.\ntools: read, bash\n"
        "model: openai/gpt-4.1-mini\n---\n\nYou are a scout.\n\nBe quick.\n",
    )
    agent = parse_agent(path, "user")
    assert not isinstance(agent, AgentProblem)
    assert (agent.name, agent.description, agent.tools, agent.model) == (
        "scout",
        "Fast search, read only.",
        ("read", "bash"),
        "openai/gpt-4.1-mini",
    )
    assert agent.system_prompt == "You are a scout.\n\nBe quick."


def test_tools_as_a_yaml_list_and_no_tools_at_all(tmp_path: Path) -> None:
    listed = parse_agent(
        write(tmp_path / "a.md", "---\nname: a\ndescription: d\ntools: [read, edit]\n---\nx"),
        "project",
    )
    plain = parse_agent(write(tmp_path / "b.md", "---\nname: b\ndescription: d\n---\n"), "user")
    assert not isinstance(listed, AgentProblem) and listed.tools == ("read", "edit")
    assert not isinstance(plain, AgentProblem) and plain.tools is None and plain.model is None


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("name: a\n", "the file does not start with a `---` frontmatter line"),
        ("---\nname: a\ndescription: d\n", "the frontmatter is never closed with a `---` line"),
        ("---\nname: [a\n---\n", "invalid YAML"),
        ("---\ndescription: d\n---\n", "`name` is required"),
        ("---\nname: two words\ndescription: d\n---\n", "`name` is required"),
        ("---\nname: a\n---\n", "`description` is required"),
        ("---\nname: a\ndescription: d\ntools: read, gr ep\n---\n", "'gr ep' is not a tool name"),
        ("---\nname: a\ndescription: d\nmodel: [a]\n---\n", "`model` must be a model string"),
        ("---\nname: a\ndescription: d\nsandbox: jail\n---\n", "unknown sandbox mode 'jail'"),
    ],
)
def test_problems_are_named(tmp_path: Path, text: str, problem: str) -> None:
    found = parse_agent(write(tmp_path / "a.md", text), "user")
    assert isinstance(found, AgentProblem) and problem in found.message


def test_scopes_and_project_agents_win_on_a_name(tmp_path: Path) -> None:
    user = agent_dir() / "agents"
    write(user / "scout.md", "---\nname: scout\ndescription: user scout\n---\n")
    write(user / "writer.md", "---\nname: writer\ndescription: user writer\n---\n")
    project = tmp_path / "repo"
    write(project / ".pi" / "agents" / "scout.md", "---\nname: scout\ndescription: ours\n---\n")
    deep = project / "src" / "pkg"
    deep.mkdir(parents=True)

    assert {a.name: a.source for a in discover_agents(deep).agents.values()} == {
        "scout": "user",
        "writer": "user",
    }
    project_only = discover_agents(deep, "project")
    assert list(project_only.agents) == ["scout"]
    assert project_only.project_dir == project / ".pi" / "agents"
    both = discover_agents(deep, "both")
    assert both.agents["scout"].description == "ours" and both.agents["writer"].source == "user"
    assert both.listing() == "scout (project), writer (user)"


def test_a_broken_file_is_reported_and_the_others_still_load(tmp_path: Path) -> None:
    folder = tmp_path / ".pi" / "agents"
    write(folder / "good.md", "---\nname: good\ndescription: fine\n---\n")
    write(folder / "again.md", "---\nname: good\ndescription: twice\n---\n")
    write(folder / "bad.md", "no frontmatter here")
    write(folder / "notes.txt", "ignored: not Markdown")

    catalog = discover_agents(tmp_path, "project")

    assert list(catalog.agents) == ["good"] and catalog.agents["good"].description == "twice"
    assert [str(p) for p in catalog.problems] == [
        f"{folder / 'bad.md'}: the file does not start with a `---` frontmatter line",
        f"{folder / 'good.md'}: agent 'good' is already again.md",
    ]


def test_this_repositorys_agents_load_cleanly() -> None:
    repo = Path(__file__).resolve().parents[2]
    catalog = discover_agents(repo, "project")
    assert catalog.problems == []
    assert {name: agent.tools for name, agent in catalog.agents.items()} == {
        "planner": ("read", "bash", "prime_query", "skill_activate"),
        "reviewer": ("read", "bash", "prime_query", "skill_activate"),
        "scout": ("read", "bash", "prime_query", "skill_activate"),
    }
    assert all(
        "Never edit" in a.system_prompt or "read-only" in a.system_prompt
        for a in catalog.agents.values()
    )
