"""Discovery: roots in order, first name wins, what is searched, loops, and the parse cache."""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

import pytest

from workbench.errors import UsageError
from workbench.skills import parse
from workbench.skills.discover import SkillRoot, load_project_skills, load_skills


def skill_text(name: str, description: str = "d") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n"


def explicit(*paths: Path) -> list[SkillRoot]:
    return [SkillRoot(p, "explicit") for p in paths]


@pytest.fixture
def project(tmp_path: Path, isolated_user_dirs: Path, write_skill) -> Path:
    """A project whose `calendar` skill exists in every root, with a description naming it."""
    root = tmp_path / "project"
    (root / ".pi").mkdir(parents=True)
    (root / ".pi" / "settings.json").write_text(json.dumps({"skills": {"paths": ["configured"]}}))
    home = isolated_user_dirs
    for where, folder in [
        ("settings", root / "configured"),
        ("pi-project", root / ".pi" / "skills"),
        ("agents-project", root / ".agents" / "skills"),
        ("pi-user", home / ".pi" / "agent" / "skills"),
        ("agents-user", home / ".agents" / "skills"),
    ]:
        write_skill("calendar", skill_text("calendar", where), root=folder)
        write_skill(f"only-{where}", skill_text(f"only-{where}"), root=folder)
    return root


def test_discovery_order_and_first_name_wins(project: Path, tmp_path: Path, write_skill) -> None:
    write_skill("calendar", skill_text("calendar", "explicit"), root=tmp_path / "cli")
    found = load_project_skills(project, extra=[tmp_path / "cli"])
    assert found.graph.get("calendar").description == "explicit"
    assert {s.name for s in found.graph.skills.values()} == {
        "calendar",
        "only-settings",
        "only-pi-project",
        "only-agents-project",
        "only-pi-user",
        "only-agents-user",
    }
    assert [s.description for s in found.shadowed] == [
        "settings",
        "pi-project",
        "agents-project",
        "pi-user",
        "agents-user",
    ]
    # each is overridden by the explicit path: a warning, not the error two of one root get
    duplicates = [d for d in found.diagnostics if d.rule == "name-shadowed"]
    assert [d.path for d in duplicates] == [s.path for s in found.shadowed]
    assert all(str(tmp_path / "cli" / "calendar" / "SKILL.md") in d.message for d in duplicates)
    assert duplicates[0].line == 2
    assert found.files == 11


def test_without_extra_paths_settings_come_first(project: Path) -> None:
    found = load_project_skills(project)
    assert found.graph.get("calendar").description == "settings"
    origins = ["settings", "project", "project", "user", "user", "project", "user"]
    assert [r.origin for r in found.roots] == origins


def test_a_skill_folder_is_not_searched_further(tmp_path: Path, write_skill) -> None:
    write_skill("outer", skill_text("outer"))
    write_skill("outer/inner", skill_text("inner"))
    found = load_skills(explicit(tmp_path / "skills"))
    assert list(found.graph.skills) == ["outer"]


def test_explicit_paths_search_hidden_folders(tmp_path: Path, write_skill) -> None:
    write_skill(".curated/hidden", skill_text("hidden"))
    write_skill("node_modules/pkg/bundled", skill_text("bundled"))
    write_skill(".git/never", skill_text("never"))
    found = load_skills(explicit(tmp_path / "skills"))
    assert sorted(found.graph.skills) == ["bundled", "hidden"]


def test_default_roots_skip_hidden_folders_and_node_modules(tmp_path: Path, write_skill) -> None:
    project = tmp_path / "project"
    skills = project / ".pi" / "skills"
    write_skill("visible", skill_text("visible"), root=skills)
    write_skill(".draft/hidden", skill_text("hidden"), root=skills)
    write_skill("node_modules/x", skill_text("x"), root=skills)
    assert list(load_project_skills(project).graph.skills) == ["visible"]


def test_a_skill_file_or_folder_may_be_given(tmp_path: Path, write_skill) -> None:
    path = write_skill("one", skill_text("one"))
    write_skill("two", skill_text("two"))
    assert list(load_skills(explicit(path)).graph.skills) == ["one"]
    assert list(load_skills(explicit(path.parent)).graph.skills) == ["one"]


def test_a_missing_explicit_path_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no-such-dir: no such file or directory"):
        load_skills(explicit(tmp_path / "no-such-dir"))


def test_a_missing_settings_path_is_a_finding(tmp_path: Path) -> None:
    found = load_skills([SkillRoot(tmp_path / "gone", "settings")])
    assert [(d.rule, d.severity, d.path) for d in found.diagnostics] == [
        ("skill-path-missing", "warning", tmp_path / "gone")
    ]


def test_missing_default_roots_are_skipped_quietly(tmp_path: Path) -> None:
    found = load_project_skills(tmp_path)
    assert (len(found.graph), found.diagnostics, found.files) == (0, [], 0)


def test_symlink_loops_are_reported_and_do_not_hang(tmp_path: Path, write_skill) -> None:
    write_skill("group/real", skill_text("real"))
    group = tmp_path / "skills" / "group"
    (group / "back-up").symlink_to(tmp_path / "skills")
    (group / "self").symlink_to(group / "self")
    (group / "again").symlink_to(group / "real")
    found = load_skills(explicit(tmp_path / "skills"))
    assert list(found.graph.skills) == ["real"]
    assert found.files == 1
    assert sorted((d.rule, d.path.name) for d in found.diagnostics) == [
        ("symlink-loop", "back-up"),
        ("symlink-loop", "self"),
    ]


def test_linked_skill_folders_are_followed(tmp_path: Path, write_skill) -> None:
    write_skill("elsewhere", skill_text("elsewhere"), root=tmp_path / "store")
    (tmp_path / "skills").mkdir()
    (tmp_path / "skills" / "linked").symlink_to(tmp_path / "store" / "elsewhere")
    assert list(load_skills(explicit(tmp_path / "skills")).graph.skills) == ["elsewhere"]


def test_bad_skills_do_not_stop_the_others(tmp_path: Path, write_skill) -> None:
    write_skill("a-good", skill_text("a-good"))
    write_skill("b-bad-yaml", "---\nname: [oops\n---\n")
    write_skill("c-binary", b"\x00\xff\xfe garbage")
    (tmp_path / "skills" / "d-loop").mkdir()
    (tmp_path / "skills" / "d-loop" / "SKILL.md").symlink_to(tmp_path / "skills/d-loop/SKILL.md")
    write_skill("e-good", skill_text("e-good"))
    found = load_skills(explicit(tmp_path / "skills"))
    assert sorted(found.graph.skills) == ["a-good", "b-bad-yaml", "c-binary", "e-good"]
    assert sorted((d.skill, d.rule) for d in found.diagnostics) == [
        ("b-bad-yaml", "yaml-invalid"),
        ("c-binary", "encoding-invalid"),
        ("c-binary", "frontmatter-missing"),
        ("d-loop", "file-unreadable"),
    ]
    assert found.files == 5
    assert [d.rule for d in found.diagnostics_for("c-binary")] == [
        "encoding-invalid",
        "frontmatter-missing",
    ]


class TestParseCache:
    @pytest.fixture(autouse=True)
    def cache_home(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
        return tmp_path / "cache" / "workbench"

    @staticmethod
    def parser_must_not_run(monkeypatch: pytest.MonkeyPatch, allowed: set[str]) -> list[str]:
        parsed: list[str] = []
        real = parse.parse_skill  # discover imports it when a file is not in the cache

        def counting(path: str):
            parsed.append(Path(path).parent.name)
            assert Path(path).parent.name in allowed, f"parsed {path} again"
            return real(path)

        monkeypatch.setattr(parse, "parse_skill", counting)
        return parsed

    def test_second_load_uses_the_cache(self, tmp_path, write_skill, monkeypatch, cache_home):
        write_skill("one", skill_text("one"))
        write_skill("two", "---\nname: [bad\n---\n")
        first = load_skills(explicit(tmp_path / "skills"))
        assert len(list(cache_home.glob("skills-*.pickle"))) == 1
        parsed = self.parser_must_not_run(monkeypatch, allowed=set())
        second = load_skills(explicit(tmp_path / "skills"))
        assert parsed == []
        assert second.graph.skills == first.graph.skills
        assert second.diagnostics == first.diagnostics

    def test_changed_files_are_parsed_again(self, tmp_path, write_skill, monkeypatch):
        write_skill("one", skill_text("one"))
        path = write_skill("two", skill_text("two", "old"))
        load_skills(explicit(tmp_path / "skills"))
        path.write_text(skill_text("two", "new text"))
        parsed = self.parser_must_not_run(monkeypatch, allowed={"two"})
        assert load_skills(explicit(tmp_path / "skills")).graph.get("two").description == (
            "new text"
        )
        stat = path.stat()
        path.write_text(skill_text("two", "new tex2"))  # same size, new mtime
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
        assert load_skills(explicit(tmp_path / "skills")).graph.get("two").description == (
            "new tex2"
        )
        assert parsed == ["two", "two"]

    def test_no_cache_is_written_into_the_skills(self, tmp_path, write_skill):
        write_skill("one", skill_text("one"))
        before = sorted(p.name for p in (tmp_path / "skills").rglob("*"))
        load_skills(explicit(tmp_path / "skills"))
        assert sorted(p.name for p in (tmp_path / "skills").rglob("*")) == before

    @pytest.mark.parametrize(
        "content", [b"", b"garbage", pickle.dumps(("wrong", "header")), pickle.dumps([1, 2])]
    )
    def test_a_corrupt_cache_is_ignored_and_replaced(
        self, tmp_path, write_skill, cache_home, content
    ):
        write_skill("one", skill_text("one"))
        load_skills(explicit(tmp_path / "skills"))
        (cache_file,) = cache_home.glob("skills-*.pickle")
        cache_file.write_bytes(content)
        assert list(load_skills(explicit(tmp_path / "skills")).graph.skills) == ["one"]
        assert cache_file.read_bytes() != content

    def test_an_unwritable_cache_folder_is_harmless(self, tmp_path, write_skill, monkeypatch):
        write_skill("one", skill_text("one"))
        blocker = tmp_path / "not-a-folder"
        blocker.write_text("a file where the cache folder should be")
        monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
        assert list(load_skills(explicit(tmp_path / "skills")).graph.skills) == ["one"]

    def test_use_cache_false_writes_nothing(self, tmp_path, write_skill, cache_home):
        write_skill("one", skill_text("one"))
        load_skills(explicit(tmp_path / "skills"), use_cache=False)
        assert not cache_home.exists()


def test_overlapping_roots_find_each_file_once(tmp_path: Path, write_skill) -> None:
    write_skill("group/one", skill_text("one"))
    skills = tmp_path / "skills"
    found = load_skills(explicit(skills, skills / "group", skills / "group" / "one" / "SKILL.md"))
    assert (found.files, found.diagnostics, list(found.graph.skills)) == (1, [], ["one"])


def test_one_file_reached_through_two_roots_counts_once(
    tmp_path: Path, isolated_user_dirs: Path, write_skill
) -> None:
    root = tmp_path / "linked"
    write_skill("notes", skill_text("notes"), root=root / ".pi" / "skills")
    (isolated_user_dirs / ".agents").mkdir()
    (isolated_user_dirs / ".agents" / "skills").symlink_to(root / ".pi" / "skills")
    found = load_project_skills(root)
    assert found.files == 1 and found.shadowed == []
    assert [d.rule for d in found.diagnostics] == []


def test_settings_paths_resolve_like_pis_and_bang_patterns_exclude(
    tmp_path: Path, write_skill
) -> None:
    root = tmp_path / "paths"
    (root / ".pi").mkdir(parents=True)
    (root / ".pi" / "settings.json").write_text(
        json.dumps({"skills": ["../team-skills", "!draft-*"]})
    )
    write_skill("review", skill_text("review"), root=root / "team-skills")
    write_skill("draft-idea", skill_text("draft-idea"), root=root / "team-skills")
    found = load_project_skills(root)
    assert set(found.graph.skills) == {"review"}


def test_claude_code_roots_come_last_and_can_be_turned_off(
    tmp_path: Path, isolated_user_dirs: Path, write_skill
) -> None:
    root = tmp_path / "cc"
    write_skill("shared", skill_text("shared", "pi"), root=root / ".pi" / "skills")
    write_skill("shared", skill_text("shared", "claude"), root=root / ".claude" / "skills")
    write_skill(
        "mine", skill_text("mine", "claude user"), root=isolated_user_dirs / ".claude" / "skills"
    )
    found = load_project_skills(root)
    assert found.graph.get("shared").description == "pi"
    assert found.graph.get("mine").description == "claude user"
    (root / ".pi" / "settings.json").write_text(json.dumps({"skills": {"claude": False}}))
    assert set(load_project_skills(root).graph.skills) == {"shared"}


def test_agents_skills_in_the_working_folder_and_above_it(tmp_path: Path, write_skill) -> None:
    root = tmp_path / "mono"
    (root / ".git").mkdir(parents=True)
    write_skill("near", skill_text("near"), root=root / "pkg" / "app" / ".agents" / "skills")
    write_skill("mid", skill_text("mid"), root=root / "pkg" / ".agents" / "skills")
    write_skill("top", skill_text("top"), root=root / ".agents" / "skills")
    found = load_project_skills(root, cwd=root / "pkg" / "app")
    assert set(found.graph.skills) == {"near", "mid", "top"}
    assert set(load_project_skills(root).graph.skills) == {"top"}


def test_a_roots_gitignore_is_honoured(tmp_path: Path, write_skill) -> None:
    root = tmp_path / "ignored"
    for name in ("kept", "scratch-one", "scratch-keep", "build-out", "vendored"):
        write_skill(name, skill_text(name), root=root / ("vendor" if name == "vendored" else "."))
    (root / ".gitignore").write_text("# drafts\nscratch-*\n!scratch-keep\n/build-out/\nvendor\n")
    found = load_skills([SkillRoot(root, "explicit")], use_cache=False)
    assert set(found.graph.skills) == {"kept", "scratch-keep"}
