"""Which tool calls load a skill: read paths and bash commands, resolved like the tools do."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.skill_trees import write_tree

from workbench.enforcer.detect import loads
from workbench.skills.graph import SkillGraph


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, SkillGraph]:
    graph = write_tree(tmp_path / ".pi" / "skills")
    (tmp_path / "src").mkdir()
    return tmp_path, graph


def names(graph: SkillGraph, tool: str, args: dict, cwd: Path) -> list[str]:
    return [load.skill.name for load in loads(graph, tool, args, cwd)]


def partial(graph: SkillGraph, tool: str, args: dict, cwd: Path) -> bool:
    [load] = loads(graph, tool, args, cwd)
    return load.partial


def test_read_relative_absolute_and_dotdot(project):
    root, graph = project
    relative = {"path": ".pi/skills/outline/SKILL.md"}
    assert names(graph, "read", relative, root) == ["outline"]
    absolute = {"path": str(root / ".pi/skills/outline/SKILL.md")}
    assert names(graph, "read", absolute, root / "src") == ["outline"]
    dotdot = {"path": "../.pi/skills/fetch-url/../outline/SKILL.md"}
    assert names(graph, "read", dotdot, root / "src") == ["outline"]


def test_read_through_symlinks_and_upper_case_name(project):
    root, graph = project
    (root / "linked").symlink_to(root / ".pi" / "skills")
    assert names(graph, "read", {"path": "linked/outline/SKILL.md"}, root) == ["outline"]
    (root / "notes.md").symlink_to(root / ".pi/skills/run-tests/SKILL.md")
    assert names(graph, "read", {"path": "notes.md"}, root) == ["run-tests"]
    assert names(graph, "read", {"path": ".pi/skills/outline/SKILL.MD"}, root) == ["outline"]
    assert names(graph, "read", {"file_path": ".pi/skills/outline/skill.md"}, root) == ["outline"]


def test_files_that_are_not_known_skills_are_not_loads(project, tmp_path):
    root, graph = project
    other = tmp_path / "elsewhere" / "mine"
    other.mkdir(parents=True)
    (other / "SKILL.md").write_text("---\nname: mine\n---\n")
    assert names(graph, "read", {"path": str(other / "SKILL.md")}, root) == []
    assert names(graph, "read", {"path": ".pi/skills/outline/README.md"}, root) == []
    assert names(graph, "read", {"path": ""}, root) == []
    assert names(graph, "write", {"path": ".pi/skills/outline/SKILL.md"}, root) == []
    assert names(graph, "edit", {"path": ".pi/skills/outline/SKILL.md"}, root) == []


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("cat .pi/skills/outline/SKILL.md", ["outline"]),
        ("head -n 40 .pi/skills/outline/SKILL.md", ["outline"]),
        ("tail -20 .pi/skills/outline/SKILL.md", ["outline"]),
        ("less .pi/skills/outline/SKILL.md", ["outline"]),
        ("more .pi/skills/outline/SKILL.md", ["outline"]),
        ("sed -n '1,80p' .pi/skills/outline/SKILL.md", ["outline"]),
        ("awk '{print}' .pi/skills/outline/SKILL.md", ["outline"]),
        ("bat --plain .pi/skills/outline/SKILL.MD", ["outline"]),
        ("/usr/bin/cat .pi/skills/outline/SKILL.md", ["outline"]),
        ("LC_ALL=C sudo cat .pi/skills/outline/SKILL.md", ["outline"]),
        ("wc -l < .pi/skills/outline/SKILL.md", ["outline"]),
        ("while read -r line; do echo $line; done < .pi/skills/outline/SKILL.md", ["outline"]),
        ("cat .pi/skills/outline/SKILL.md | grep Steps", ["outline"]),
        (
            "ls && cat .pi/skills/write-draft/SKILL.md && cat .pi/skills/outline/SKILL.md",
            ["write-draft", "outline"],
        ),
        ("cd .pi/skills/outline && cat SKILL.md", ["outline"]),
        ("cd .pi/skills\ncat outline/SKILL.md", ["outline"]),
        ("cat '.pi/skills/outline/SKILL.md' 2>/dev/null || true", ["outline"]),
        ('echo "$(cat .pi/skills/outline/SKILL.md)"', ["outline"]),
        ("echo `head .pi/skills/outline/SKILL.md`", ["outline"]),
        ("bash -c 'cat .pi/skills/outline/SKILL.md'", ["outline"]),
        ("cat .pi/skills/out*/SKILL.md", ["outline"]),
        ("cat .pi/skills/outline/SKILL.md .pi/skills/outline/SKILL.md", ["outline"]),
        ("cat .pi/skills/{outline,fetch-url}/SKILL.md", ["outline", "fetch-url"]),
        ("head .pi/skills/{out*,gone}/SKILL.md", ["outline"]),
        ("diff <(cat .pi/skills/outline/SKILL.md) notes.md", ["outline"]),
        ("awk 'length($0) > 80' .pi/skills/outline/SKILL.md", ["outline"]),  # a quoted `>`
        ("sed -n '/<!--/,/-->/p' .pi/skills/outline/SKILL.md", ["outline"]),
        ("awk -F '|' '{print $1}' .pi/skills/outline/SKILL.md", ["outline"]),  # a quoted `|`
        ('cat ".pi/skills/outline/SKILL.md"|"head"', ["outline"]),
    ],
)
def test_bash_commands_that_print_a_skill(project, command, expected):
    root, graph = project
    assert names(graph, "bash", {"command": command}, root) == expected


@pytest.mark.parametrize(
    "command",
    [
        "echo .pi/skills/outline/SKILL.md",
        "cp .pi/skills/outline/SKILL.md /tmp/copy.md",
        "sed -i 's/a/b/' .pi/skills/outline/SKILL.md",
        "echo hi > .pi/skills/outline/SKILL.md",
        "grep -n Steps .pi/skills/outline/SKILL.md",
        "cat <<EOF > notes.md\ncat .pi/skills/outline/SKILL.md\nEOF",
        "cat '.pi/skills/outline/SKILL.md",
        "cat .pi/skills/outline/README.md",
        "cat .pi/skills/{outline}/SKILL.md",  # no comma: bash leaves the braces as they are
    ],
)
def test_bash_commands_that_do_not_print_a_skill(project, command):
    root, graph = project
    assert names(graph, "bash", {"command": command}, root) == []


def test_bash_resolves_against_the_tool_folder(project):
    root, graph = project
    assert names(graph, "bash", {"command": "cat ../.pi/skills/outline/SKILL.md"}, root / "src")
    assert not names(graph, "bash", {"command": "cat .pi/skills/outline/SKILL.md"}, root / "src")


def test_brace_expansion_is_bounded(project):
    root, graph = project
    command = "cat " + "{a,b}" * 40 + " .pi/skills/outline/SKILL.md"
    assert names(graph, "bash", {"command": command}, root) == ["outline"]


OUTLINE = ".pi/skills/outline/SKILL.md"


@pytest.mark.parametrize(
    ("command", "shows_part"),
    [
        (f"cat {OUTLINE}", False),
        (f"cat {OUTLINE} | head -3", True),
        (f"cat {OUTLINE} | grep Steps", True),
        (f"cat {OUTLINE} | less", False),
        (f"cat {OUTLINE} | cat -n | head", True),
        (f"cat {OUTLINE} | tee copy.md", False),
        (f"head -3 {OUTLINE}", True),
        (f"head {OUTLINE}", True),
        (f"tail -n 5 {OUTLINE}", True),
        (f"sed -n '1,20p' {OUTLINE}", True),
        (f"sed -ne 5p {OUTLINE}", True),
        (f"sed 10q {OUTLINE}", True),
        (f"sed 's/a/b/' {OUTLINE}", False),
        (f"awk 'NR <= 5' {OUTLINE}", True),
        (f"awk '{{ print }}' {OUTLINE}", False),
        (f"awk -F , 1 {OUTLINE}", False),
        (f"bat -r 1:10 {OUTLINE}", True),
        (f"wc -l < {OUTLINE}", True),
        (f"cat < {OUTLINE}", False),
        (f"bash -c 'cat {OUTLINE}' | head -3", True),
        (f'echo "$(cat {OUTLINE})" | head -1', True),
        (f"head -3 {OUTLINE}; cat {OUTLINE}", False),  # seen whole once: a full load
        (f"cat {OUTLINE} || head -3 {OUTLINE}", False),
    ],
)
def test_bash_views_that_show_only_part_of_a_skill(project, command, shows_part):
    root, graph = project
    assert partial(graph, "bash", {"command": command}, root) is shows_part


@pytest.mark.parametrize(
    ("args", "shows_part"),
    [
        ({}, False),
        ({"limit": 3}, True),
        ({"offset": 2}, True),
        ({"offset": 1}, False),
    ],
)
def test_reads_with_a_window_show_only_part_of_a_skill(project, args, shows_part):
    root, graph = project
    assert partial(graph, "read", {"path": OUTLINE, **args}, root) is shows_part
