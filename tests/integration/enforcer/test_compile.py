"""`workbench compile` as a user runs it, and projections over the example graph and the corpora."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support.skill_trees import Spec, write_skill, write_tree

from workbench.skills.discover import SkillRoot, load_skills
from workbench.skills.projection import TARGET_TOKENS, estimate_tokens, project

REPO = Path(__file__).resolve().parents[3]
CORPORA = REPO.parent / "shared" / "corpora"


def compile_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "workbench", "compile", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_compile_writes_the_layout_for_each_skill(tmp_path):
    write_tree(tmp_path / "skills")
    done = compile_cli("skills", "--out", "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("compiled 12 skills to out (estimated tokens per skill: summary")
    folder = tmp_path / "out" / "gather-sources"
    assert sorted(snapshot(folder)) == [
        "chunks/core.md",
        "chunks/full.md",
        "chunks/summary.md",
        "graph.yaml",
        "skill.yaml",
    ]
    meta = yaml.safe_load((folder / "skill.yaml").read_text())
    assert meta["layer"] == "molecule" and meta["delegates-to"] == ["fetch-url", "extract-text"]
    assert meta["estimated-tokens"]["summary"] <= TARGET_TOKENS["summary"]
    edges = yaml.safe_load((folder / "graph.yaml").read_text())
    assert [e["name"] for e in edges["delegates-to"]] == ["fetch-url", "extract-text"]
    assert edges["parents-above"] == ["publish-report"]
    assert (folder / "chunks" / "full.md").read_text().startswith("# gather-sources (molecule)")
    index = yaml.safe_load((tmp_path / "out" / "index.yaml").read_text())
    assert [e["name"] for e in index][:2] == ["extract-text", "fetch-url"]


def test_compile_is_deterministic_and_removes_stale_skills(tmp_path):
    write_tree(tmp_path / "skills")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "README.txt").write_text("mine")
    compile_cli("skills", "--out", "out", cwd=tmp_path)
    first = snapshot(tmp_path / "out")
    compile_cli("skills", "--out", "out", cwd=tmp_path)
    assert snapshot(tmp_path / "out") == first
    for path in sorted((tmp_path / "skills" / "outline").iterdir()):
        path.unlink()
    (tmp_path / "skills" / "outline").rmdir()
    compile_cli("skills", "--out", "out", cwd=tmp_path)
    assert not (tmp_path / "out" / "outline").exists()
    assert (tmp_path / "out" / "README.txt").read_text() == "mine"


def test_unsafe_names_get_safe_folders(tmp_path):
    write_skill(tmp_path / "skills", "odd", Spec(extra={"name": "../Odd Name"}))
    done = compile_cli("skills", "--out", "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert [p.name for p in (tmp_path / "out").iterdir() if p.is_dir()] == ["Odd-Name"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "skills"]  # nothing outside


def test_a_missing_path_is_a_usage_error(tmp_path):
    done = compile_cli("nowhere", "--out", "out", cwd=tmp_path)
    assert done.returncode == 2
    assert "nowhere: no such file or directory" in done.stderr
    assert not (tmp_path / "out").exists()


def test_the_example_graph_compiles(tmp_path):
    done = compile_cli("--out", str(tmp_path / "out"), cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "compound-ship-change" / "chunks" / "core.md").is_file()
    summaries = sorted((tmp_path / "out").glob("*/chunks/summary.md"))
    assert len(summaries) == 16
    for path in summaries:  # what the skill is and why it exists: both, however short
        head, purpose_line = path.read_text(encoding="utf-8").strip().splitlines()
        assert head.startswith(f"{path.parents[1].name} (")
        assert purpose_line.startswith("purpose: ") and len(purpose_line.split()) >= 5


@pytest.mark.skipif(not CORPORA.is_dir(), reason="the shared corpora are not on this machine")
def test_projections_stay_within_budget_on_every_corpus_skill():
    skills = load_skills([SkillRoot(CORPORA, "explicit")], use_cache=False).graph
    assert len(skills) > 1400
    over = []
    for skill in skills.skills.values():
        for level in ("summary", "core"):
            if estimate_tokens(project(skill, level)) > TARGET_TOKENS[level]:
                over.append((skill.name, level))
    assert over == []


def test_a_skill_named_like_the_index_gets_its_own_folder(tmp_path):
    write_skill(tmp_path / "skills", "odd", Spec(extra={"name": "index.yaml"}))
    done = compile_cli("skills", "--out", "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    index = yaml.safe_load((tmp_path / "out" / "index.yaml").read_text())
    assert [(e["name"], e["folder"]) for e in index] == [("index.yaml", "index.yaml-2")]
    assert (tmp_path / "out" / "index.yaml-2" / "chunks" / "full.md").is_file()


def test_an_output_folder_that_cannot_be_written_is_one_clear_line(tmp_path):
    write_tree(tmp_path / "skills")
    (tmp_path / "taken").write_text("a file, not a folder")
    done = compile_cli("skills", "--out", "taken", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith("workbench: cannot write the projections to taken: ")
    assert "Traceback" not in done.stderr
    assert (tmp_path / "taken").read_text() == "a file, not a folder"
