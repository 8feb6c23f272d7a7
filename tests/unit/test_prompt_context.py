"""Project context files and the system prompt: found where users expect, stable across turns."""

from __future__ import annotations

from pathlib import Path

from workbench.agent.context_files import MAX_BYTES, context_files
from workbench.agent.models.client import ModelRequest
from workbench.agent.system_prompt import build_system_prompt, working_folder
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
    agent_dir().mkdir(parents=True, exist_ok=True)
    (agent_dir() / "AGENTS.md").write_text("my global rules")
    found = context_files(repo / "pkg" / "sub")
    assert found.notices == []
    assert [f.text for f in found.files] == [
        "my global rules",
        "root rules",
        "package rules",
        "sub rules",
    ]


def test_outside_a_repository_only_the_working_folder_counts(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("parent")
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "AGENTS.md").write_text("here")
    assert [f.text for f in context_files(tmp_path / "work").files] == ["here"]


def test_system_prompt_is_byte_stable_and_complete(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "AGENTS.md").write_text("Use tabs.")

    def build() -> str:
        return build_system_prompt(
            tools=builtin_tools(),
            context_files=context_files(tmp_path).files,
            append="Answer in French.",
        )

    first = build()
    assert build() == first
    assert "- read: Read a text file" in first and "- bash: Run a bash command" in first
    assert f"Project context from {tmp_path / 'AGENTS.md'}:\n\nUse tabs." in first
    assert "Working folder" not in first, "it differs per fork: it is the prompt's suffix"
    assert first.endswith("Answer in French.\n")
    custom = build_system_prompt(tools=[], context_files=[], base="Only say hi.")
    assert custom == "Only say hi.\n"
    assert working_folder(tmp_path) == f"Working folder: {tmp_path}"
    request = ModelRequest(custom, [], system_suffix=working_folder(tmp_path))
    assert request.full_system_prompt == f"Only say hi.\n\nWorking folder: {tmp_path}\n"


def test_a_project_file_that_leads_outside_the_project_is_not_read(tmp_path: Path) -> None:
    secret = tmp_path / "home" / ".ssh" / "id_rsa"
    secret.parent.mkdir(parents=True)
    secret.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n")
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / "AGENTS.md").symlink_to(secret)
    found = context_files(project)
    assert found.files == []
    assert found.notices == [
        f"{project / 'AGENTS.md'} was not read: it leads outside the project (to {secret})"
    ]


def test_links_inside_the_project_and_to_the_users_config_are_read(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "rules.md").write_text("project rules")
    (tmp_path / "AGENTS.md").symlink_to(tmp_path / "docs" / "rules.md")
    sub = tmp_path / "sub"
    sub.mkdir()
    agent_dir().mkdir(parents=True, exist_ok=True)
    (agent_dir() / "shared.md").write_text("my shared rules")
    (sub / "CLAUDE.md").symlink_to(agent_dir() / "shared.md")
    found = context_files(sub)
    assert [f.text for f in found.files] == ["project rules", "my shared rules"]
    assert found.notices == []


def test_binary_is_refused_and_a_long_file_is_cut_with_a_notice(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "AGENTS.md").write_bytes(b"\x7fELF\x00\x01\x02")
    work = tmp_path / "work"
    work.mkdir()
    (work / "AGENTS.md").write_text("a" + "é" * MAX_BYTES)  # two bytes each: the cut splits one
    found = context_files(work)
    assert [f.path for f in found.files] == [work / "AGENTS.md"]
    assert found.files[0].text == "a" + "é" * (MAX_BYTES // 2 - 1)
    assert found.notices == [
        f"{tmp_path / 'AGENTS.md'} was not read: it is not UTF-8 text",
        f"{work / 'AGENTS.md'} was cut to its first 64 KiB",
    ]
