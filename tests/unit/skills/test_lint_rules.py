"""Every lint rule: a skill tree that breaks it (found at the expected file and line) and one that
keeps it (not reported). Trees are written into a temporary folder per case."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from workbench.errors import UsageError
from workbench.skills.discover import SkillRoot, load_skills
from workbench.skills.lint import lint
from workbench.skills.rules import RULES

INTERACTION_RULES = """
> **Rule 1: one question at a time.** Ask exactly one question per message.
>
> **Rule 2: options.** Offer lettered options, mark one `(recommended)`, end with a free-form one:
>
> A) Go on (recommended)
> B) Stop
> C) Other: type your own answer
"""

Files = dict[str, str | bytes | Callable[[Path], None]]


def sk(
    name: str,
    *,
    layer: str | None = None,
    to: str | None = None,
    standalone: str | None = None,
    extra: str = "",
    body: str = "",
    top_level: bool = False,
) -> str:
    """A SKILL.md; our fields under `metadata` (spec-clean) unless `top_level`."""
    ours = {"layer": layer, "delegates-to": to, "standalone": standalone}
    ours_lines = [f"{key}: {value}" for key, value in ours.items() if value is not None]
    lines = [f"name: {name}", f"description: The {name} skill."]
    if top_level:
        lines += ours_lines
    elif ours_lines:
        lines += ["metadata:", *(f"  {line}" for line in ours_lines)]
    if layer in ("molecule", "compound") and not body:
        body = INTERACTION_RULES
    return "---\n" + "\n".join(lines) + "\n" + extra + "---\n" + body


def atom(name: str, **kwargs: str) -> str:
    return sk(name, layer="atom", standalone='"true"', **kwargs)


def fifo(path: Path) -> None:
    os.mkfifo(path)


def link_to(target: str) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        path.symlink_to(target)

    return make


@dataclass
class Case:
    fail: Files
    passing: Files
    where: list[tuple[str, int]]
    """(file relative to the tree, line) of each finding the `fail` tree must produce."""
    origin: str = "explicit"
    roots: list[tuple[str, str]] = field(default_factory=list)
    """(folder in the tree, origin) of each root, when the case needs roots of several kinds."""


MOLECULE = sk("molecule-m", layer="molecule", to='"atom-a"')
GRAPH_OK: Files = {
    "compound-c/SKILL.md": sk("compound-c", layer="compound", to='"molecule-m"'),
    "molecule-m/SKILL.md": MOLECULE,
    "atom-a/SKILL.md": atom("atom-a"),
}

CASES: dict[str, Case] = {
    "file-unreadable": Case(
        fail={"a/SKILL.md": fifo, "b/SKILL.md": link_to("SKILL.md")},
        passing={"a/SKILL.md": sk("a")},
        where=[("a/SKILL.md", 1), ("b/SKILL.md", 1)],
    ),
    "file-too-large": Case(
        fail={"a/SKILL.md": sk("a", body="x" * (1 << 20))},
        passing={"a/SKILL.md": sk("a", body="x" * 1000)},
        where=[("a/SKILL.md", 1)],
    ),
    "encoding-invalid": Case(
        fail={"a/SKILL.md": sk("a").encode() + b"Body \xff\n"},
        passing={"a/SKILL.md": sk("a", body="Body \u00ff\n")},
        where=[("a/SKILL.md", 5)],
    ),
    "symlink-loop": Case(
        fail={"group/a/SKILL.md": sk("a"), "group/up": link_to("..")},
        passing={"store/a/SKILL.md": sk("a"), "alias": link_to("store")},
        where=[("group/up", 1)],
    ),
    "skill-path-missing": Case(
        fail={"elsewhere/a/SKILL.md": sk("a")},
        passing={"configured/a/SKILL.md": sk("a")},
        where=[("configured", 1)],
        origin="settings",
    ),
    "frontmatter-missing": Case(
        fail={"a/SKILL.md": "# A\n\nNo fields.\n", "b/SKILL.md": ""},
        passing={"a/SKILL.md": sk("a")},
        where=[("a/SKILL.md", 1), ("b/SKILL.md", 1)],
    ),
    "frontmatter-unclosed": Case(
        fail={"a/SKILL.md": "---\nname: a\ndescription: d\n# A\n"},
        passing={"a/SKILL.md": sk("a")},
        where=[("a/SKILL.md", 1)],
    ),
    "yaml-invalid": Case(
        fail={"a/SKILL.md": "---\nname: a\ndescription: d\nmetadata:\n\tlayer: atom\n---\n"},
        passing={"a/SKILL.md": sk("a", extra="metadata:\n  note: 'a: b'\n")},
        where=[("a/SKILL.md", 5)],
    ),
    "yaml-too-complex": Case(
        fail={
            "a/SKILL.md": sk("a", extra="metadata:\n  deep: " + "[" * 70 + "]" * 70 + "\n"),
            "b/SKILL.md": sk(
                "b",
                extra="metadata:\n  x: &x [" + "y," * 400 + "y]\n  z: [" + "*x," * 300 + "*x]\n",
            ),
        },
        passing={"a/SKILL.md": sk("a", extra="metadata:\n  x: &x [1, 2]\n  z: [*x, *x]\n")},
        where=[("a/SKILL.md", 5), ("b/SKILL.md", 6)],
    ),
    "frontmatter-not-mapping": Case(
        fail={"a/SKILL.md": "---\n- name: a\n---\n"},
        passing={"a/SKILL.md": sk("a")},
        where=[("a/SKILL.md", 2)],
    ),
    "key-duplicate": Case(
        fail={"a/SKILL.md": "---\nname: a\ndescription: d\ndescription: e\n---\n"},
        passing={"a/SKILL.md": sk("a")},
        where=[("a/SKILL.md", 4)],
    ),
    "field-invalid": Case(
        fail={"a/SKILL.md": sk("a", layer="atom", standalone="maybe")},
        passing={"a/SKILL.md": atom("a")},
        where=[("a/SKILL.md", 6)],
    ),
    "layer-invalid": Case(
        fail={"a/SKILL.md": sk("a", layer="service", top_level=True)},
        passing={"a/SKILL.md": sk("a", layer="atom", standalone="true", top_level=True)},
        where=[("a/SKILL.md", 4)],
    ),
    "name-missing": Case(
        fail={"a/SKILL.md": "---\ndescription: d\n---\n", "b/SKILL.md": "---\nname: ''\n---\n"},
        passing={"a/SKILL.md": sk("a")},
        where=[("a/SKILL.md", 1), ("b/SKILL.md", 2)],
    ),
    "name-format": Case(
        fail={
            "Bad_Name/SKILL.md": sk("Bad_Name"),
            "bad--name/SKILL.md": sk("bad--name"),
            "-lead/SKILL.md": sk("-lead"),
        },
        passing={"good-name-2/SKILL.md": sk("good-name-2")},
        where=[("-lead/SKILL.md", 2), ("Bad_Name/SKILL.md", 2), ("bad--name/SKILL.md", 2)],
    ),
    "name-too-long": Case(
        fail={f"{'a' * 65}/SKILL.md": sk("a" * 65)},
        passing={f"{'a' * 64}/SKILL.md": sk("a" * 64)},
        where=[(f"{'a' * 65}/SKILL.md", 2)],
    ),
    "name-mismatch": Case(
        fail={"folder/SKILL.md": sk("other")},
        passing={"same/SKILL.md": sk("same")},
        where=[("folder/SKILL.md", 2)],
    ),
    "name-duplicate": Case(
        fail={"one/cal/SKILL.md": sk("cal"), "two/cal/SKILL.md": sk("cal")},
        passing={"one/cal/SKILL.md": sk("cal"), "two/cal2/SKILL.md": sk("cal2")},
        where=[("two/cal/SKILL.md", 2)],
    ),
    "skill-file-case": Case(
        fail={"a/skill.md": sk("a"), "b/SKILL.md": sk("b")},
        passing={"a/SKILL.md": sk("a"), "b/SKILL.md": sk("b")},
        where=[("a/skill.md", 1)],
    ),
    "name-shadowed": Case(
        fail={"project/cal/SKILL.md": sk("cal"), "user/cal/SKILL.md": sk("cal")},
        passing={"project/cal/SKILL.md": sk("cal"), "user/cal2/SKILL.md": sk("cal2")},
        where=[("user/cal/SKILL.md", 2)],
        roots=[("project", "project"), ("user", "user")],
    ),
    "description-missing": Case(
        fail={
            "x/SKILL.md": "---\nname: x\n---\n",
            "y/SKILL.md": "---\nname: y\ndescription:\n---\n",
        },
        passing={"x/SKILL.md": sk("x")},
        where=[("x/SKILL.md", 1), ("y/SKILL.md", 3)],
    ),
    "description-too-long": Case(
        fail={"a/SKILL.md": f"---\nname: a\ndescription: {'d' * 1025}\n---\n"},
        passing={"a/SKILL.md": f"---\nname: a\ndescription: {'d' * 1024}\n---\n"},
        where=[("a/SKILL.md", 3)],
    ),
    "compatibility-too-long": Case(
        fail={"a/SKILL.md": sk("a", extra=f"compatibility: {'c' * 501}\n")},
        passing={"a/SKILL.md": sk("a", extra=f"compatibility: {'c' * 500}\n")},
        where=[("a/SKILL.md", 4)],
    ),
    "unknown-field": Case(
        fail={"a/SKILL.md": sk("a", extra="author: me\nversion: 1.0\n")},
        passing={
            "a/SKILL.md": sk(
                "a",
                extra="license: MIT\ncompatibility: git\nallowed-tools: read bash\n"
                "disable-model-invocation: true\nmetadata:\n  author: me\n",
            )
        },
        where=[("a/SKILL.md", 4), ("a/SKILL.md", 5)],
    ),
    "evals-invalid": Case(
        fail={"a/SKILL.md": sk("a"), "a/evals/evals.json": '{"cases": []}'},
        passing={
            "a/SKILL.md": sk("a"),
            "a/evals/evals.json": '{"skill_name": "a", "evals": [{"id": 1, "prompt": "Go."}]}',
        },
        where=[("a/evals/evals.json", 1)],
    ),
    "evals-id-duplicate": Case(
        fail={
            "a/SKILL.md": sk("a"),
            "a/evals/evals.json": '{"evals": [{"id": 1, "prompt": "A"}, {"id": 1, "prompt": "B"}]}',
        },
        passing={
            "a/SKILL.md": sk("a"),
            "a/evals/evals.json": '{"evals": [{"id": 1, "prompt": "A"}, {"id": 2, "prompt": "B"}]}',
        },
        where=[("a/evals/evals.json", 1)],
    ),
    "evals-file-missing": Case(
        fail={
            "a/SKILL.md": sk("a"),
            "a/evals/evals.json": '{"evals": [{"id": 1, "prompt": "A.", "files": ["in.txt"]}]}',
        },
        passing={
            "a/SKILL.md": sk("a"),
            "a/in.txt": "x",
            "a/evals/evals.json": '{"evals": [{"id": 1, "prompt": "A.", "files": ["in.txt"]}]}',
        },
        where=[("a/evals/evals.json", 1)],
    ),
    "triggers-invalid": Case(
        fail={"a/SKILL.md": sk("a"), "a/evals/triggers.json": '[{"query": "hi"}]'},
        passing={
            "a/SKILL.md": sk("a"),
            "a/evals/triggers.json": '[{"query": "hi", "should_trigger": false}]',
        },
        where=[("a/evals/triggers.json", 1)],
    ),
    "reference-broken": Case(
        fail={
            "a/SKILL.md": sk(
                "a",
                body="\nUse [b](../gone/SKILL.md).\nThen `../nope/SKILL.md`.\n"
                "See ../a8/SKILL.md.\n",
            )
        },
        passing={
            "a/SKILL.md": sk(
                "a",
                body="[b](../b/SKILL.md) [ref](references/x.md) `../b/SKILL.md`\n"
                "See ../b/SKILL.md, then run ./references/x.md.\n",
            ),
            "a/references/x.md": "x",
            "b/SKILL.md": sk("b"),
        },
        where=[("a/SKILL.md", 6), ("a/SKILL.md", 7), ("a/SKILL.md", 8)],
    ),
    "atom-delegates": Case(
        fail={**GRAPH_OK, "atom-a/SKILL.md": atom("atom-a", to='"atom-b"')},
        passing=GRAPH_OK,
        where=[("atom-a/SKILL.md", 6)],
    ),
    "delegates-missing": Case(
        fail={**GRAPH_OK, "molecule-m/SKILL.md": sk("molecule-m", layer="molecule")},
        passing=GRAPH_OK,
        where=[("molecule-m/SKILL.md", 5)],
    ),
    "delegate-unknown": Case(
        fail={
            **GRAPH_OK,
            "molecule-m/SKILL.md": sk(
                "molecule-m", layer="molecule", to="\n    - atom-a\n    - atom-typo"
            ),
        },
        passing={**GRAPH_OK, "plain/SKILL.md": sk("plain", extra="delegates-to: [nothing]\n")},
        where=[("molecule-m/SKILL.md", 8)],
    ),
    "delegate-layer": Case(
        fail={
            **GRAPH_OK,
            "compound-c/SKILL.md": sk("compound-c", layer="compound", to='"molecule-m atom-a"'),
            "molecule-m/SKILL.md": sk("molecule-m", layer="molecule", to='"atom-a compound-c"'),
            "molecule-n/SKILL.md": sk("molecule-n", layer="molecule", to='"plain"'),
            "plain/SKILL.md": sk("plain"),
        },
        passing=GRAPH_OK,
        where=[("compound-c/SKILL.md", 6), ("molecule-m/SKILL.md", 6), ("molecule-n/SKILL.md", 6)],
    ),
    "delegation-cycle": Case(
        fail={
            "molecule-a/SKILL.md": sk("molecule-a", layer="molecule", to='"molecule-b"'),
            "molecule-b/SKILL.md": sk("molecule-b", layer="molecule", to='"molecule-a"'),
            "molecule-s/SKILL.md": sk("molecule-s", layer="molecule", to='"molecule-s"'),
        },
        passing=GRAPH_OK,
        where=[("molecule-a/SKILL.md", 6), ("molecule-s/SKILL.md", 6)],
    ),
    "atom-not-standalone": Case(
        fail={**GRAPH_OK, "atom-a/SKILL.md": sk("atom-a", layer="atom")},
        passing={**GRAPH_OK, "atom-a/SKILL.md": sk("atom-a", layer="atom", standalone='"false"')},
        where=[("atom-a/SKILL.md", 5)],
    ),
    "fanout-high": Case(
        fail={
            "molecule-m/SKILL.md": sk(
                "molecule-m",
                layer="molecule",
                to='"' + " ".join(f"atom-{i}" for i in range(11)) + '"',
            )
        },
        passing={
            "molecule-m/SKILL.md": sk(
                "molecule-m",
                layer="molecule",
                to='"' + " ".join(f"atom-{i}" for i in range(10)) + '"',
            )
        },
        where=[("molecule-m/SKILL.md", 6)],
    ),
    "unreachable": Case(
        fail={
            "molecule-m/SKILL.md": MOLECULE,
            "atom-a/SKILL.md": sk("atom-a", layer="atom"),
            "atom-b/SKILL.md": sk("atom-b", layer="atom"),
        },
        passing={**GRAPH_OK, "atom-b/SKILL.md": atom("atom-b")},
        where=[("atom-b/SKILL.md", 5), ("molecule-m/SKILL.md", 5)],
    ),
    "interaction-rules-missing": Case(
        fail={
            **GRAPH_OK,
            "molecule-m/SKILL.md": sk(
                "molecule-m", layer="molecule", to='"atom-a"', body="Ask one question at a time.\n"
            ),
            "compound-c/SKILL.md": sk(
                "compound-c", layer="compound", to='"molecule-m"', body="Just do it.\n"
            ),
        },
        passing={
            **GRAPH_OK,
            "compound-c/SKILL.md": sk(
                "compound-c",
                layer="compound",
                to='"molecule-m"',
                body="铁律:一次只问一个问题。\nA) 选项一 B) 选项二 ⭐ 推荐 C) 自定义:___\n",
            ),
        },
        where=[("compound-c/SKILL.md", 8), ("molecule-m/SKILL.md", 8)],
    ),
}


def build(root: Path, files: Files) -> None:
    root.mkdir(parents=True)
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if callable(content):
            content(path)
        else:
            path.write_bytes(content.encode() if isinstance(content, str) else content)


def findings(tree: Path, case: Case, rule: str) -> list[tuple[str, int]]:
    root = tree / "configured" if case.origin == "settings" else tree
    roots = [SkillRoot(tree / folder, origin) for folder, origin in case.roots]  # type: ignore[arg-type]
    skills = load_skills(roots or [SkillRoot(root, case.origin)], use_cache=False)
    found = lint(skills, select=[rule])
    assert {d.rule for d in found} <= {rule}
    assert all(d.severity == RULES[rule].severity for d in found)
    return sorted((d.path.relative_to(tree).as_posix(), d.line) for d in found)


def test_every_rule_has_a_case() -> None:
    assert sorted(CASES) == sorted(RULES)


@pytest.mark.parametrize("rule", sorted(CASES))
def test_rule_reports_the_failing_tree(rule: str, tmp_path: Path) -> None:
    case = CASES[rule]
    build(tmp_path / "fail", case.fail)
    assert findings(tmp_path / "fail", case, rule) == sorted(case.where)


@pytest.mark.parametrize("rule", sorted(CASES))
def test_rule_passes_the_good_tree(rule: str, tmp_path: Path) -> None:
    case = CASES[rule]
    build(tmp_path / "pass", case.passing)
    assert findings(tmp_path / "pass", case, rule) == []


def test_the_good_graph_is_clean_under_every_rule(tmp_path: Path) -> None:
    build(tmp_path / "graph", GRAPH_OK)
    skills = load_skills([SkillRoot(tmp_path / "graph", "explicit")], use_cache=False)
    assert lint(skills) == []


def test_top_level_and_metadata_forms_lint_alike(tmp_path: Path) -> None:
    top = {
        "compound-c/SKILL.md": sk(
            "compound-c", layer="compound", to="[molecule-m]", top_level=True
        ),
        "molecule-m/SKILL.md": sk("molecule-m", layer="molecule", to="[atom-a]", top_level=True),
        "atom-a/SKILL.md": sk("atom-a", layer="atom", standalone="true", top_level=True),
    }
    build(tmp_path / "top", top)
    skills = load_skills([SkillRoot(tmp_path / "top", "explicit")], use_cache=False)
    assert lint(skills) == []
    assert skills.graph.parents_above("atom-a") == {"molecule-m"}
    assert skills.graph.get("atom-a").standalone is True


def test_unlayered_skills_get_only_the_public_rules(tmp_path: Path) -> None:
    build(
        tmp_path / "t",
        {"plain/SKILL.md": sk("plain", extra="delegates-to: [gone, 'x']\n", body="Just do it.\n")},
    )
    skills = load_skills([SkillRoot(tmp_path / "t", "explicit")], use_cache=False)
    assert lint(skills) == []


def test_select_and_ignore(tmp_path: Path) -> None:
    build(tmp_path / "t", {"folder/SKILL.md": "---\nname: Other\nauthor: me\n---\n"})
    skills = load_skills([SkillRoot(tmp_path / "t", "explicit")], use_cache=False)
    every = {d.rule for d in lint(skills)}
    assert every == {"name-format", "name-mismatch", "description-missing", "unknown-field"}
    assert {d.rule for d in lint(skills, select=["unknown-field", "name-format"])} == {
        "unknown-field",
        "name-format",
    }
    assert {d.rule for d in lint(skills, ignore=["unknown-field"])} == every - {"unknown-field"}
    assert lint(skills, select=["name-format"], ignore=["name-format"]) == []
    with pytest.raises(UsageError, match="unknown rule id: nope"):
        lint(skills, ignore=["nope"])


def test_select_filters_findings_made_while_reading(tmp_path: Path) -> None:
    build(tmp_path / "t", {"a/SKILL.md": "no frontmatter", "b/SKILL.md": sk("b")})
    skills = load_skills([SkillRoot(tmp_path / "t", "explicit")], use_cache=False)
    assert [d.rule for d in lint(skills)] == ["frontmatter-missing"]
    assert lint(skills, ignore=["frontmatter-missing"]) == []


def test_shadowed_skills_are_linted_too(tmp_path: Path) -> None:
    build(
        tmp_path / "t", {"one/cal/SKILL.md": sk("cal"), "two/cal/SKILL.md": "---\nname: cal\n---\n"}
    )
    skills = load_skills([SkillRoot(tmp_path / "t", "explicit")], use_cache=False)
    assert [(d.rule, d.path.parent.parent.name) for d in lint(skills)] == [
        ("description-missing", "two"),
        ("name-duplicate", "two"),
    ]


def test_cycle_message_names_the_cycle(tmp_path: Path) -> None:
    build(tmp_path / "t", CASES["delegation-cycle"].fail)
    skills = load_skills([SkillRoot(tmp_path / "t", "explicit")], use_cache=False)
    messages = [d.message for d in lint(skills, select=["delegation-cycle"])]
    assert messages == [
        "delegation cycle: molecule-a -> molecule-b -> molecule-a",
        "delegation cycle: molecule-s -> molecule-s",
    ]


def test_delegate_layer_message_uses_the_right_article(tmp_path: Path) -> None:
    build(tmp_path / "t", CASES["delegate-layer"].fail)
    skills = load_skills([SkillRoot(tmp_path / "t", "explicit")], use_cache=False)
    messages = [d.message for d in lint(skills, select=["delegate-layer"])]
    assert messages == [
        "delegates to `atom-a`, an atom; a compound delegates to molecules",
        "delegates to `compound-c`, a compound; a molecule delegates to atoms",
        "delegates to `plain`, an ordinary skill without a layer; a molecule delegates to atoms",
    ]


def test_name_format_hint_suggests_a_name_that_also_matches_the_folder(tmp_path: Path) -> None:
    build(
        tmp_path / "t",
        {
            "-21risk-automation/SKILL.md": sk("-21risk-automation"),
            "pdf-tools/SKILL.md": sk("PDF Tools"),
            "tidy/SKILL.md": sk("Messy_Name"),
        },
    )
    skills = load_skills([SkillRoot(tmp_path / "t", "explicit")], use_cache=False)
    hints = [(d.path.parent.name, d.hint) for d in lint(skills, select=["name-format"])]
    assert hints == [
        ("-21risk-automation", "call it `21risk-automation` and rename its folder to match"),
        ("pdf-tools", "call it `pdf-tools`, like its folder"),
        ("tidy", "call it `tidy`, like its folder"),
    ]
