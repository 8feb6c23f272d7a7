"""The skill set notices changes on disk with a stat check, and only then loads again."""

from __future__ import annotations

import os

from skill_trees import EXAMPLE, Spec, load_tree, write_skill, write_tree

from workbench.enforcer.reload import SkillSet


def counting_loader(root):
    calls = []

    def load():
        calls.append(1)
        return load_tree(root)

    return load, calls


def test_no_change_no_reload(tmp_path):
    root = tmp_path / "skills"
    write_tree(root)
    load, calls = counting_loader(root)
    skills = SkillSet(load)
    assert not skills.changed() and not skills.changed()
    assert len(calls) == 1


def test_an_edited_skill_file_reloads(tmp_path):
    root = tmp_path / "skills"
    write_tree(root)
    load, _ = counting_loader(root)
    skills = SkillSet(load, lint=lambda graph: [])
    path = root / "outline" / "SKILL.md"
    path.write_text(path.read_text().replace("Does outline.", "Writes an outline."))
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert skills.changed()
    assert skills.graph.get("outline").description.startswith("Writes an outline.")
    assert not skills.changed()


def test_a_new_and_a_removed_skill_folder_reload(tmp_path):
    root = tmp_path / "skills"
    write_tree(root, {"outline": EXAMPLE["outline"]})
    load, _ = counting_loader(root)
    skills = SkillSet(load)
    write_skill(root, "fresh", Spec())
    assert skills.changed() and "fresh" in skills.graph
    (root / "fresh" / "SKILL.md").unlink()
    (root / "fresh").rmdir()
    assert skills.changed() and "fresh" not in skills.graph


def test_an_empty_root_is_watched_for_its_first_skill(tmp_path):
    root = tmp_path / "skills"
    root.mkdir()
    load, _ = counting_loader(root)
    skills = SkillSet(load, roots=[root])
    assert len(skills.graph) == 0
    write_skill(root, "first", Spec())
    assert skills.changed() and "first" in skills.graph
