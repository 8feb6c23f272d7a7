"""The live skill set notices changes on disk with a stat check, and only then loads again."""

from __future__ import annotations

import os

from support.skill_trees import EXAMPLE, Spec, load_set, write_skill, write_tree

from workbench.enforcer.reload import LiveSkills


def counting_loader(root):
    calls = []

    def load():
        calls.append(1)
        return load_set(root)

    return load, calls


def touch_later(path):
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))


def test_no_change_no_reload(tmp_path):
    root = tmp_path / "skills"
    write_tree(root)
    load, calls = counting_loader(root)
    skills = LiveSkills(load)
    assert not skills.changed() and not skills.changed()
    assert len(calls) == 1


def test_an_edited_skill_file_reloads_with_its_lint_findings(tmp_path):
    root = tmp_path / "skills"
    write_tree(root)
    skills = LiveSkills(counting_loader(root)[0])
    path = root / "outline" / "SKILL.md"
    good = path.read_text()
    assert "yaml-invalid" not in {d.rule for d in skills.diagnostics}
    path.write_text(good.replace("description: Does outline.", "description: [unclosed"))
    touch_later(path)
    assert skills.changed()
    assert "yaml-invalid" in {d.rule for d in skills.diagnostics}
    path.write_text(good.replace("Does outline.", "Writes an outline."))
    touch_later(path)
    assert skills.changed()
    assert skills.graph.get("outline").description.startswith("Writes an outline.")
    assert "yaml-invalid" not in {d.rule for d in skills.diagnostics}
    assert not skills.changed()


def test_a_new_and_a_removed_skill_folder_reload(tmp_path):
    root = tmp_path / "skills"
    write_tree(root, {"outline": EXAMPLE["outline"]})
    load, _ = counting_loader(root)
    skills = LiveSkills(load)
    write_skill(root, "fresh", Spec())
    assert skills.changed() and "fresh" in skills.graph
    (root / "fresh" / "SKILL.md").unlink()
    (root / "fresh").rmdir()
    assert skills.changed() and "fresh" not in skills.graph


def test_an_empty_root_is_watched_for_its_first_skill(tmp_path):
    root = tmp_path / "skills"
    root.mkdir()
    skills = LiveSkills(counting_loader(root)[0])
    assert len(skills.graph) == 0
    write_skill(root, "first", Spec())
    assert skills.changed() and "first" in skills.graph


def test_the_lint_findings_are_made_only_when_asked_for(tmp_path, monkeypatch):
    """Opening a session with 5,000 skills spent a second linting them for a `-p` run that never
    shows a finding: the findings wait until asked for, once per load."""
    import workbench.enforcer.reload as reload

    root = tmp_path / "skills"
    write_tree(root)
    linted = []
    real = reload.lint
    monkeypatch.setattr(reload, "lint", lambda found: linted.append(1) or real(found))
    skills = LiveSkills(counting_loader(root)[0])
    assert linted == []
    assert skills.diagnostics == skills.diagnostics
    assert linted == [1]
    path = root / "outline" / "SKILL.md"
    touch_later(path)
    assert skills.changed() and linted == [1]
