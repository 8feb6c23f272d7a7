"""`workbench lint` and `workbench graph` as a user runs them: real subprocesses, real files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def workbench(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "workbench", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """One error (a broken name), two warnings (unknown fields), one clean skill."""
    root = tmp_path / "skills"
    write(root / "good" / "SKILL.md", "---\nname: good\ndescription: Fine.\n---\nBody\n")
    write(root / "folder" / "SKILL.md", "---\nname: other\ndescription: d\n---\n")
    write(root / "extra" / "SKILL.md", "---\nname: extra\ndescription: d\nauthor: me\nv: 1\n---\n")
    return root


def test_lint_text_output(tree: Path) -> None:
    result = workbench("lint", "skills", cwd=tree.parent)
    assert result.returncode == 1
    assert result.stderr == ""
    assert result.stdout == (
        "skills/extra/SKILL.md:4: warning unknown-field unknown field `author`\n"
        "    move it under `metadata:`\n"
        "skills/extra/SKILL.md:5: warning unknown-field unknown field `v`\n"
        "    move it under `metadata:`\n"
        "skills/folder/SKILL.md:2: error name-mismatch name `other` differs from its folder "
        "`folder`\n"
        "    rename the folder or the skill so that they match\n"
        "3 skills, 1 error, 2 warnings\n"
    )


def test_lint_json_output(tree: Path) -> None:
    result = workbench("lint", str(tree), "--format", "json")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert (report["skills"], report["errors"], report["warnings"]) == (3, 1, 2)
    assert report["diagnostics"][2] == {
        "rule": "name-mismatch",
        "severity": "error",
        "skill": "other",
        "path": str(tree / "folder" / "SKILL.md"),
        "line": 2,
        "message": "name `other` differs from its folder `folder`",
        "hint": "rename the folder or the skill so that they match",
    }


def test_warnings_pass_unless_strict(tree: Path) -> None:
    assert workbench("lint", str(tree), "--ignore", "name-mismatch").returncode == 0
    strict = workbench("lint", str(tree), "--ignore", "name-mismatch", "--strict")
    assert strict.returncode == 1
    assert strict.stdout.endswith("3 skills, 0 errors, 2 warnings\n")


def test_select_and_ignore_take_lists(tree: Path) -> None:
    only = workbench("lint", str(tree), "--select", "unknown-field,name-format", "--format", "json")
    assert {d["rule"] for d in json.loads(only.stdout)["diagnostics"]} == {"unknown-field"}
    assert only.returncode == 0
    none = workbench("lint", str(tree), "--ignore", "unknown-field", "--ignore", "name-mismatch")
    assert (none.returncode, none.stdout) == (0, "3 skills, 0 errors, 0 warnings\n")


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["lint", "no-such-folder"], "workbench: no-such-folder: no such file or directory\n"),
        (["graph", "no-such-folder"], "workbench: no-such-folder: no such file or directory\n"),
        (["lint", "--select", "nope"], "workbench: unknown rule id: nope (docs/lint-rules.md"),
        (["lint", "--format", "xml"], "workbench lint: argument --format: invalid choice"),
        (["graph", "--bogus"], "workbench graph: unrecognized arguments: --bogus"),
    ],
)
def test_usage_errors_exit_2_with_one_line(tree: Path, args: list[str], reason: str) -> None:
    result = workbench(*args, cwd=tree.parent)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith(reason)
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("command", ["lint", "graph"])
def test_a_file_that_is_not_a_skill_md_is_a_usage_error(tree: Path, command: str) -> None:
    write(tree / "README.md", "# Not a skill\n")
    result = workbench(command, "skills/README.md", cwd=tree.parent)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "workbench: skills/README.md: not a SKILL.md\n"
        "  hint: PATH may be a skills folder, a skill folder or a SKILL.md\n"
    )


def test_a_skill_md_is_found_whatever_its_case(tmp_path: Path) -> None:
    write(tmp_path / "lower" / "skill.md", "---\nname: lower\ndescription: d\n---\n")
    result = workbench("lint", "lower/skill.md", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        "1 skill, 0 errors, 0 warnings\n",
        "",
    )


def test_a_folder_given_without_a_skill_md_names_the_missing_file(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = workbench("lint", "empty", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith(
        "workbench: empty/SKILL.md: no such file, and no skill folder below it\n"
    )
    assert workbench("graph", "empty", cwd=tmp_path).stderr == result.stderr


def test_the_example_skills_lint_clean() -> None:
    result = workbench("lint", "--strict", "skills")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.endswith(" skills, 0 errors, 0 warnings\n")
    assert int(result.stdout.split()[0]) >= 12


def test_without_paths_the_project_settings_are_used(tmp_path: Path) -> None:
    project = tmp_path / "project"
    write(project / ".pi" / "settings.json", '{"skills": {"paths": ["mine"]}}')
    write(project / "mine" / "folder" / "SKILL.md", "---\nname: x\ndescription: d\n---\n")
    write(project / ".pi" / "skills" / "y" / "SKILL.md", "---\nname: y\ndescription: d\n---\n")
    result = workbench("lint", cwd=project / "mine")
    assert result.stdout == (
        "folder/SKILL.md:2: error name-mismatch name `x` differs from its folder `folder`\n"
        "    rename the folder or the skill so that they match\n"
        "2 skills, 1 error, 0 warnings\n"
    )


def test_graph_tree_of_the_example() -> None:
    result = workbench("graph")
    assert result.returncode == 0 and result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0] == "compound-ship-change"
    assert "├── molecule-plan-change" in lines
    assert "│   ├── atom-inspect-repo (standalone)" in lines
    summary = next(i for i, line in enumerate(lines) if line.startswith("1 compound, 4 molecules"))
    assert lines[summary + 1 : summary + 3] == ["", "Found in:"]
    assert lines[summary + 3].startswith("  skills (settings): atom-commit-changes, ")


def test_graph_says_which_root_each_skill_came_from(tmp_path: Path) -> None:
    for root, name in ((".pi/skills", "from-pi"), (".claude/skills", "from-claude")):
        folder = tmp_path / root / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d\n---\n")
    (tmp_path / ".git").mkdir()
    lines = workbench("graph", cwd=tmp_path).stdout.splitlines()
    found = lines[lines.index("Found in:") + 1 :]
    assert found == ["  .pi/skills (project): from-pi", "  .claude/skills (project): from-claude"]


def test_graph_formats_agree(tree: Path) -> None:
    data = json.loads(workbench("graph", "--format", "json", "skills").stdout)
    names = {s["name"] for s in data["skills"]}
    assert "compound-ship-change" in names
    mermaid = workbench("graph", "--format", "mermaid", "skills").stdout
    dot = workbench("graph", "--format", "dot", "skills").stdout
    assert mermaid.startswith("flowchart TD\n")
    assert dot.startswith("digraph skills {\n")
    assert mermaid.count(" --> ") == dot.count(" -> ") == len(data["edges"]) > 10
    for name in names:
        assert f'"{name}"' in mermaid and f'"{name}"' in dot


def test_graph_says_when_reading_found_problems(tree: Path) -> None:
    write(tree / "broken" / "SKILL.md", "no frontmatter here\n")
    result = workbench("graph", str(tree))
    assert result.returncode == 0
    assert "  broken" in result.stdout
    assert result.stderr == (
        "workbench: 1 problem found while reading the skills; run `workbench lint` for details\n"
    )


def test_graph_names_a_missing_settings_path_as_lint_does(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write(
        tmp_path / ".pi" / "skills" / "here" / "SKILL.md", "---\nname: here\ndescription: d\n---\n"
    )
    write(tmp_path / ".pi" / "settings.json", json.dumps({"skills": {"paths": ["gone"]}}))
    graph = workbench("graph", cwd=tmp_path)
    lint = workbench("lint", cwd=tmp_path)
    said = [line for line in lint.stdout.splitlines(keepends=True) if "skill-path-missing" in line]
    assert len(said) == 1 and "gone" in said[0]
    assert graph.returncode == 0 and "  here" in graph.stdout
    assert said[0] in graph.stderr  # the same line, and the hint below it
    assert "fix `skills.paths`" in graph.stderr


def test_graph_of_nothing_says_where_it_looked(tmp_path: Path) -> None:
    result = workbench("graph", cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout == "0 compounds, 0 molecules, 0 atoms, 0 unlayered\n"
    assert result.stderr.startswith(f"workbench: no skills found in {tmp_path}/.pi/skills, ")
