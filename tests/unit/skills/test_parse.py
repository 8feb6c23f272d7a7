"""Parsing one SKILL.md: both field forms, line numbers, and bad input that must not crash."""

from __future__ import annotations

import os
import pickle
import re
from pathlib import Path
from typing import ClassVar

import pytest
import yaml

from workbench.skills import frontmatter
from workbench.skills.parse import parse_skill
from workbench.skills.skill_file import decode, split

CORPORA = Path(__file__).resolve().parents[3].parent / "shared" / "corpora"

TOP_LEVEL = """---
name: molecule-review
description: Review a change before it is merged.
layer: molecule
delegates-to:
  - atom-read-diff
  - atom-run-tests
metadata:
  owner: team
---

# Review

Body text.
"""

SPEC_CLEAN = """---
name: molecule-review
description: Review a change before it is merged.
metadata:
  layer: molecule
  delegates-to: "atom-read-diff atom-run-tests"
  standalone: "false"
---
Body.
"""


def rules(diagnostics: list) -> list[tuple[str, int]]:
    return [(d.rule, d.line) for d in diagnostics]


def test_top_level_form(write_skill) -> None:
    skill, found = parse_skill(write_skill("molecule-review", TOP_LEVEL))
    assert found == []
    assert skill.name == "molecule-review"
    assert skill.description == "Review a change before it is merged."
    assert skill.layer == "molecule"
    assert skill.delegates_to == ("atom-read-diff", "atom-run-tests")
    assert skill.standalone is False
    assert skill.line_of("layer") == 4
    assert skill.line_of_delegate("atom-run-tests") == 7
    assert skill.field_lines["metadata.owner"] == 9
    assert skill.body_line == 11
    assert skill.body.splitlines()[0] == ""
    assert skill.body.splitlines()[1] == "# Review"


def test_spec_clean_metadata_form(write_skill) -> None:
    skill, found = parse_skill(write_skill("molecule-review", SPEC_CLEAN))
    assert found == []
    assert skill.layer == "molecule"
    assert skill.delegates_to == ("atom-read-diff", "atom-run-tests")
    assert skill.standalone is False
    assert skill.line_of("layer") == 5
    assert skill.line_of_delegate("atom-run-tests") == 6
    assert skill.body == "Body.\n"
    assert skill.body_line == 9


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ('"true"', True),
        ("true", True),
        ("'True'", True),
        ("True", True),
        ("yes", True),  # YAML 1.1 reads these as booleans ...
        ("off", False),
        ('"yes"', True),  # ... so the same words quoted, as the spec-clean form writes them, agree
        ("'On'", True),
        ('"NO"', False),
        ('"false"', False),
    ],
)
def test_standalone_accepts_text_and_booleans(write_skill, value: str, expected: bool) -> None:
    text = f"---\nname: x\ndescription: d\nmetadata:\n  layer: atom\n  standalone: {value}\n---\n"
    skill, found = parse_skill(write_skill("x", text))
    assert (skill.standalone, found) == (expected, [])


def test_field_in_both_forms_is_reported_and_top_level_wins(write_skill) -> None:
    text = "---\nname: a\ndescription: d\nlayer: atom\nmetadata:\n  layer: molecule\n---\n"
    skill, found = parse_skill(write_skill("a", text))
    assert skill.layer == "atom"
    assert rules(found) == [("field-invalid", 6)]
    assert "both top-level and under metadata" in found[0].message


def test_crlf_reads_like_lf(write_skill) -> None:
    lf, _ = parse_skill(write_skill("lf/molecule-review", TOP_LEVEL))
    crlf, found = parse_skill(write_skill("crlf/molecule-review", TOP_LEVEL.replace("\n", "\r\n")))
    assert found == []
    assert (crlf.name, crlf.delegates_to, crlf.body, crlf.field_lines, crlf.body_line) == (
        lf.name,
        lf.delegates_to,
        lf.body,
        lf.field_lines,
        lf.body_line,
    )


def test_byte_order_mark_is_ignored(write_skill) -> None:
    skill, found = parse_skill(write_skill("bom", b"\xef\xbb\xbf" + SPEC_CLEAN.encode()))
    assert found == []
    assert skill.layer == "molecule"


def test_tab_indent_is_invalid_yaml_on_its_line(write_skill) -> None:
    text = "---\nname: tabbed\ndescription: d\nmetadata:\n\tlayer: atom\n---\n"
    skill, found = parse_skill(write_skill("tabbed", text))
    assert rules(found) == [("yaml-invalid", 5)]
    assert found[0].hint == "indent with spaces, not tabs"
    assert skill is not None and skill.has_frontmatter is False and skill.name == "tabbed"


def test_tabs_in_the_body_are_fine(write_skill) -> None:
    _, found = parse_skill(write_skill("t", "---\nname: t\ndescription: d\n---\n\tcode\n"))
    assert found == []


def test_non_utf8_bytes_are_reported_on_their_line_and_the_skill_loads(write_skill) -> None:
    data = b"---\nname: latin\ndescription: caf\xe9\n---\n"
    skill, found = parse_skill(write_skill("latin", data))
    assert rules(found) == [("encoding-invalid", 3)]
    assert skill.name == "latin"
    assert skill.description == "caf\ufffd"


def test_several_megabyte_file_loads_with_a_warning(write_skill) -> None:
    body = "A line of reference text that goes on.\n" * 100_000
    skill, found = parse_skill(write_skill("big", f"---\nname: big\ndescription: d\n---\n{body}"))
    assert [(d.rule, d.severity) for d in found] == [("file-too-large", "warning")]
    assert skill.body == body


@pytest.mark.parametrize(
    ("content", "rule", "line", "words"),
    [
        (b"", "frontmatter-missing", 1, "empty"),
        (b"\n  \n", "frontmatter-missing", 1, "empty"),
        (b"# Title\n\ntext\n", "frontmatter-missing", 1, "does not start"),
        (b"\n---\nname: x\n---\n", "frontmatter-missing", 1, "does not start"),
        (b"---\nname: x\ndescription: d\n", "frontmatter-unclosed", 1, "never closed"),
        (b"---", "frontmatter-unclosed", 1, "never closed"),
        (b"---\nname: x\ndescription: [unclosed\n---\n", "yaml-invalid", 3, "flow sequence"),
        (b"---\nname: x\n  bad: indent\n---\n", "yaml-invalid", 3, "invalid YAML"),
        (b"---\n- a\n- b\n---\n", "frontmatter-not-mapping", 2, "list"),
        (b"---\njust text\n---\n", "frontmatter-not-mapping", 2, "single value"),
        (b"---\nx: !!python/object/apply:os.system [ls]\n---\n", "yaml-invalid", 2, "tag"),
        (b"---\na: 1\n---\n---\n", None, 0, ""),
    ],
)
def test_bad_frontmatter_becomes_a_diagnostic(write_skill, content, rule, line, words) -> None:
    skill, found = parse_skill(write_skill("bad-skill", content))
    assert skill is not None and skill.name == "bad-skill"
    if rule is None:  # a second `---` after the frontmatter is body text
        assert skill.body == "---\n"
        return
    assert rules(found) == [(rule, line)]
    assert words in found[0].message
    assert found[0].skill == "bad-skill"
    assert skill.has_frontmatter is False


def test_deeply_nested_yaml_does_not_crash(write_skill) -> None:
    text = "---\nname: deep\nx: " + "[" * 5000 + "]" * 5000 + "\n---\n"
    skill, found = parse_skill(write_skill("deep", text))
    assert skill is not None and skill.name == "deep"
    assert [d.rule for d in found] in ([], ["yaml-invalid"])


@pytest.mark.parametrize(
    ("deep", "rule"),
    [
        ("".join(f"{'  ' * i}k{i}:\n" for i in range(70)) + "v\n", "yaml-too-complex"),
        ("- " * 70 + "v\n", "yaml-too-complex"),  # compact block sequences on one line
        ("? " * 70 + "v\n", "yaml-too-complex"),  # complex keys
        ('["a":' * 70 + "v" + "]" * 70 + "\n", "yaml-too-complex"),  # flow pairs, no `: `
        ("-\u2028" * 70 + "v\n", "yaml-invalid"),  # a YAML 1.1 line break after `-`
    ],
    ids=["mappings", "sequences", "keys", "flow-pairs", "unicode-breaks"],
)
def test_nesting_too_deep_is_found_whatever_writes_it(deep: str, rule: str) -> None:
    # the quick character count that lets most frontmatters skip the walk over their events
    # must never let a deep one through
    assert not frontmatter._surely_within_bounds(deep)
    assert [p[0] for p in frontmatter.read_frontmatter(deep).problems] == [rule]


@pytest.mark.skipif(not CORPORA.is_dir(), reason=f"no corpora at {CORPORA}")
def test_the_quick_bounds_check_agrees_with_the_walk_over_the_corpora() -> None:
    quick = 0
    for path in sorted(CORPORA.rglob("SKILL.md")):
        parts = split(decode(path.read_bytes(), lambda *_: None), lambda *_: None)
        if parts is not None and frontmatter._surely_within_bounds(parts[0]):
            quick += 1
            assert frontmatter._walk_bounds(parts[0]) is None, path
    assert quick > 1000


def test_empty_frontmatter_is_an_empty_mapping(write_skill) -> None:
    skill, found = parse_skill(write_skill("empty-fm", "---\n---\nbody\n"))
    assert (found, skill.has_frontmatter, skill.frontmatter, skill.body_line) == ([], True, {}, 3)


def test_duplicate_key(write_skill) -> None:
    skill, found = parse_skill(write_skill("d", "---\nname: d\nname: e\ndescription: x\n---\n"))
    assert rules(found) == [("key-duplicate", 3)]
    assert skill.name == "e"


def test_duplicate_key_under_metadata(write_skill) -> None:
    text = "---\nname: d\ndescription: x\nmetadata:\n  layer: atom\n  layer: molecule\n---\n"
    skill, found = parse_skill(write_skill("d", text))
    assert rules(found) == [("key-duplicate", 6)]
    assert "`metadata.layer` is set twice" in found[0].message
    assert skill.layer == "molecule"


@pytest.mark.parametrize(
    ("fields", "rule", "line", "words"),
    [
        ("layer: service", "layer-invalid", 4, "'service'"),
        ("layer: Atom", "layer-invalid", 4, "'Atom'"),
        ("layer: 3", "layer-invalid", 4, "3"),
        ("metadata:\n  layer: ''", "layer-invalid", 5, "''"),
        ("delegates-to: {a: b}", "field-invalid", 4, "not dict"),
        ("delegates-to: [a, [b]]", "field-invalid", 4, "['b']"),
        ("metadata:\n  standalone: maybe", "field-invalid", 5, "'maybe'"),
        ("metadata: just-text", "field-invalid", 4, "mapping"),
        ("description: [a, b]", "field-invalid", 3, "description"),
    ],
)
def test_our_fields_with_bad_values(write_skill, fields, rule, line, words) -> None:
    text = f"---\nname: s\ndescription: d\n{fields}\n---\n"
    if fields.startswith("description"):
        text = f"---\nname: s\n{fields}\n---\n"
    _, found = parse_skill(write_skill("s", text))
    assert rules(found) == [(rule, line)]
    assert words in found[0].message


def test_layer_in_capitals_hints_at_lowercase(write_skill) -> None:
    _, found = parse_skill(write_skill("s", "---\nname: s\ndescription: d\nlayer: Atom\n---\n"))
    assert found[0].hint == "use lowercase"


def test_a_name_that_is_not_text_keeps_the_folder_name(write_skill) -> None:
    skill, found = parse_skill(write_skill("folder-name", "---\nname: [a]\ndescription: d\n---\n"))
    assert skill.name == "folder-name"
    assert rules(found) == [("field-invalid", 2)]


def test_delegates_to_string_may_use_commas(write_skill) -> None:
    text = '---\nname: m\ndescription: d\nmetadata:\n  delegates-to: "a, b  c"\n---\n'
    skill, _ = parse_skill(write_skill("m", text))
    assert skill.delegates_to == ("a", "b", "c")


def test_unreadable_paths_become_diagnostics(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo" / "SKILL.md"
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    loop = tmp_path / "loop" / "SKILL.md"
    loop.parent.mkdir()
    loop.symlink_to(loop)
    dangling = tmp_path / "dangling" / "SKILL.md"
    dangling.parent.mkdir()
    dangling.symlink_to(tmp_path / "nowhere.md")
    folder = tmp_path / "folder" / "SKILL.md"
    folder.mkdir(parents=True)
    for path, words in [
        (fifo, "not a regular file"),
        (loop, "symlink loop"),
        (dangling, "No such file"),
        (folder, "not a regular file"),
    ]:
        skill, found = parse_skill(path)
        assert skill is None
        assert rules(found) == [("file-unreadable", 1)], path
        assert words in found[0].message
        assert found[0].skill == path.parent.name


def test_references_outside_code(write_skill) -> None:
    body = "\n".join(
        [
            "See [the atom](../atom-a/SKILL.md) and [docs](references/guide.md#part).",
            "Load `../atom-b/SKILL.md` next; `scripts/run.sh` is not a reference.",
            "[web](https://example.com) [anchor](#top) [abs](/etc/passwd) [tpl]({{dir}}/x.md)",
            "```markdown",
            "[example](../not-checked/SKILL.md)",
            "```",
            "[def]: ./notes%20one.md",
            "`[code link](../in-code.md)`",
        ]
    )
    skill, _ = parse_skill(write_skill("refs", f"---\nname: refs\ndescription: d\n---\n{body}\n"))
    assert [(r.target, r.line) for r in skill.references] == [
        ("../atom-a/SKILL.md", 5),
        ("references/guide.md", 5),
        ("../atom-b/SKILL.md", 6),
        ("./notes one.md", 11),
    ]


def test_bare_relative_paths_in_prose_are_references(write_skill) -> None:
    body = "\n".join(
        [
            "See ../atom-a/SKILL.md, then ./notes.md; or (../atom-b/SKILL.md).",
            "Run ./scripts/check.sh: it prints ../report.txt.",
            "Not these: https://x.org/../y a/../b ../{{name}}/SKILL.md ... ./out (default: ../tmp)",
            "Nor a link's target twice: [a](../atom-c/SKILL.md).",
            "[d]: ./def.md",
            "```sh",
            "./in-a-fence.sh ../gone/SKILL.md",
            "```",
            "Nor in inline code: `./tool --flag ../x`.",
        ]
    )
    skill, _ = parse_skill(write_skill("refs", f"---\nname: refs\ndescription: d\n---\n{body}\n"))
    assert [(r.target, r.line) for r in skill.references] == [
        ("../atom-a/SKILL.md", 5),
        ("./notes.md", 5),
        ("../atom-b/SKILL.md", 5),
        ("./scripts/check.sh", 6),
        ("../report.txt", 6),
        ("../atom-c/SKILL.md", 8),
        ("./def.md", 9),
    ]


def test_references_follow_fences_of_every_shape(write_skill) -> None:
    body = "\n".join(
        [
            "```",  # the body's first line opens a block
            "[no](./a.md)",
            "```",
            "[yes](./b.md) and an inline ``` fence-like run",
            "   ~~~~ indented three spaces, tildes",
            "[no](./c.md)",
            "```",  # backticks do not close a tilde block
            "[no](./d.md)",
            "~~~",  # shorter than the opening run: still inside
            "~~~~~",
            "[yes](./e.md)",
            "    ```",  # four spaces: not a fence",
            "[yes](./f.md)",
            "````",
            "[no](./g.md) never closed",
        ]
    )
    skill, _ = parse_skill(write_skill("refs", f"---\nname: refs\ndescription: d\n---\n{body}"))
    assert [(r.target, r.line) for r in skill.references] == [
        ("./b.md", 8),
        ("./e.md", 15),
        ("./f.md", 17),
    ]


@pytest.mark.parametrize(
    ("body", "targets"),
    [
        ("Only a bare path: ../atom-a/SKILL.md\n", ["../atom-a/SKILL.md"]),
        ("Only a link definition:\n\n[a]: ../atom-a/SKILL.md\n", ["../atom-a/SKILL.md"]),
        ("Slashes, no relative path: a/b and https://x.org/y\n", []),
    ],
)
def test_a_body_with_one_kind_of_reference(write_skill, body: str, targets: list[str]) -> None:
    skill, _ = parse_skill(write_skill("refs", f"---\nname: refs\ndescription: d\n---\n{body}"))
    assert [r.target for r in skill.references] == targets


def test_a_pickled_skill_reads_its_body_again_on_first_use(write_skill) -> None:
    path = write_skill("molecule-review", TOP_LEVEL.replace("\n", "\r\n"))
    skill, _ = parse_skill(path)
    copy = pickle.loads(pickle.dumps(skill))
    assert "body" not in copy.__dict__
    assert copy.body == skill.body == "\n# Review\n\nBody text.\n"
    assert copy == skill
    path.unlink()
    assert pickle.loads(pickle.dumps(skill)).body == ""


def test_values_are_the_text_the_author_wrote(tmp_path: Path) -> None:
    text = (
        "---\nname: t\ndescription: yes\nmetadata:\n  version: 1.0\n  date: 2024-13-45\n"
        "  on: off\n  count: 0x1F\n  standalone: true\n  empty:\n---\nbody\n"
    )
    path = tmp_path / "t" / "SKILL.md"
    path.parent.mkdir()
    path.write_text(text)
    skill, found = parse_skill(str(path))
    assert found == [] and skill is not None
    assert skill.frontmatter["description"] == "yes"
    assert skill.frontmatter["metadata"] == {
        "version": "1.0",
        "date": "2024-13-45",
        "on": "off",
        "count": "0x1F",
        "standalone": True,
        "empty": None,
    }


class _PyYamlTextLoader(frontmatter._Base):  # type: ignore[misc, name-defined]
    """The text loader as PyYAML alone makes it: the regex resolvers and the generic constructor."""

    yaml_implicit_resolvers: ClassVar[dict] = {}


_PyYamlTextLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
_PyYamlTextLoader.add_implicit_resolver(
    "tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""]
)


@pytest.mark.parametrize(
    "text",
    [
        "a: yes\nb: 1.0\nc: 2024-01-01\nd: null\ne: ~\nf: TRUE\ng: tRue\nh:\ni: 'true'\n",
        "a: [~, null, Null, NULL, '', x, false, False]\nb: {c: d}\n",
        "a: &x [1, 2]\nb: *x\n",
        "a: &x\n  b: *x\n",  # holds itself
        "a: !!int 3\nb: !!bool yes\nc: !!str true\n",
        "<<: {a: 1}\nb: 2\n",
        "a: !!merge x\n",
        "? [a]\n: b\n",
        "!!set {a, b}\n",
        "a: !local x\n",
        "- a\n- b: c\n",
    ],
)
def test_the_quick_builder_gives_what_pyyaml_gives(text: str) -> None:
    def build(loader_class: type, quick: bool) -> str:
        loader = loader_class(text)
        try:
            node = loader.get_single_node()
            built = frontmatter._construct(node) if quick else loader.construct_document(node)
            return repr(built)
        except yaml.YAMLError as exc:
            return f"{type(exc).__name__}: {exc}"
        finally:
            loader.dispose()

    assert build(frontmatter._TextParser, True) == build(_PyYamlTextLoader, False)


def test_a_cached_skills_path_is_the_path_pathlib_makes() -> None:
    # the parse cache rebuilds paths from their parts on Python 3.11; any path pathlib would
    # read differently (`.`, `..`, doubled or trailing slashes, relative) takes pathlib's way
    from itertools import product

    from workbench.skills.model import as_path

    for parts in (p for k in range(1, 4) for p in product(["a", ".", "..", "", ".x"], repeat=k)):
        for text in ("/" + "/".join(parts), "/" + "/".join(parts) + "/", "/".join(parts)):
            made, expected = as_path(text), Path(text)
            assert (str(made), made.parts) == (str(expected), expected.parts)
            assert made == expected and hash(made) == hash(expected)
            assert made.parent == expected.parent


@pytest.mark.parametrize(
    "text",
    [
        "---\n---\n",
        "---\nname: a\n---",
        "---\nname: a\n--- \t\nbody",
        "---\nname: a\n----\n---x\n--- y\n---\n",
        "---\na: b\n  ---\n---\n",
        "---\nno closing\n",
    ],
)
def test_the_closing_line_is_the_first_line_of_three_dashes(text: str) -> None:
    from workbench.skills.skill_file import _closing_line

    anchored = re.compile(r"^---[ \t]*$", re.MULTILINE).search(text, 4)
    assert _closing_line(text, 3) == (anchored and (anchored.start(), anchored.end()))
