"""Project context files and the system prompt: found where users expect, stable across turns."""

from __future__ import annotations

from pathlib import Path

from workbench.agent.context_files import context_files
from workbench.agent.system_prompt import build_system_prompt
from workbench.agent.tools import builtin_tools
from workbench.config import agent_dir


def test_context_files_run_from_general_to_specific(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "AGENTS.md").write_text("above the repository")
    (repo / "AGENTS.md").write_text("root rules")
    (repo / "pkg" / "CLAUDE.md").write_text("package rules")
    (repo / "pkg" / "sub" / "AGENTS.md").write_text("sub rules")
    (repo / "pkg" / "sub" / "CLAUDE.md").write_text("ignored: AGENTS.md wins in a folder")
    agent_dir().mkdir(parents=True)
    (agent_dir() / "AGENTS.md").write_text("my global rules")
    found = context_files(repo / "pkg" / "sub")
    assert [f.text for f in found] == [
        "my global rules",
        "root rules",
        "package rules",
        "sub rules",
    ]


def test_outside_a_repository_only_the_working_folder_counts(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("parent")
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "AGENTS.md").write_text("here")
    assert [f.text for f in context_files(tmp_path / "work")] == ["here"]


def test_system_prompt_is_byte_stable_and_complete(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "AGENTS.md").write_text("Use tabs.")

    def build() -> str:
        return build_system_prompt(
            cwd=tmp_path,
            tools=builtin_tools(),
            context_files=context_files(tmp_path),
            append="Answer in French.",
        )

    first = build()
    assert build() == first
    assert "- read: Read a text file" in first and "- bash: Run a bash command" in first
    assert f"Project context from {tmp_path / 'AGENTS.md'}:\n\nUse tabs." in first
    assert f"Working folder: {tmp_path}" in first
    assert first.endswith("Answer in French.\n")
    custom = build_system_prompt(cwd=tmp_path, tools=[], context_files=[], base="Only say hi.")
    assert custom == f"Only say hi.\n\nWorking folder: {tmp_path}\n"
