"""The catalogue of lint rule ids: one stable kebab-case id per finding, with its severity.

Findings come from three places: the parser (what stops a file from being read as intended),
discovery (how skill folders relate on disk) and the linter (what the fields and the graph say).
All of them are named here, so that `--select`/`--ignore`, docs/lint-rules.md and every
`Diagnostic` agree on one id and one severity.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from workbench.skills.model import Diagnostic, Severity


@dataclass(frozen=True)
class Rule:
    """A lint rule: id, severity, which skills it applies to and a one-line example."""

    id: str
    severity: Severity
    scope: str
    """`file` (reported while reading), `any` (every skill) or `layered` (layered skills only)."""
    example: str


_E: Severity = "error"
_W: Severity = "warning"

RULES: dict[str, Rule] = {
    rule.id: rule
    for rule in (
        Rule("file-unreadable", _E, "file", "SKILL.md cannot be opened (a FIFO, a symlink loop)"),
        Rule("file-too-large", _W, "file", "a SKILL.md larger than 1 MiB"),
        Rule("encoding-invalid", _E, "file", "bytes that are not UTF-8 (`\\xff`)"),
        Rule("symlink-loop", _W, "file", "a folder link that points back at its own ancestor"),
        Rule("skill-file-case", _W, "file", "a folder holding `skill.md`, not `SKILL.md`"),
        Rule("skill-path-missing", _W, "file", 'settings name `"paths": ["gone"]`, not on disk'),
        Rule("frontmatter-missing", _E, "file", "the first line is `# Title`, not `---`"),
        Rule("frontmatter-unclosed", _E, "file", "`---` opens the file but never closes"),
        Rule("yaml-invalid", _E, "file", "`description: [unclosed` or a tab used for indent"),
        Rule(
            "yaml-too-complex",
            _E,
            "file",
            "nesting 65 levels deep, or aliases expanding to 100,000+ values",
        ),
        Rule("frontmatter-not-mapping", _E, "file", "a frontmatter that is `- a` (a list)"),
        Rule("key-duplicate", _E, "file", "`name:` written twice"),
        Rule("field-invalid", _E, "file", '`metadata.standalone: "maybe"`; `license: [a, b]`'),
        Rule("layer-invalid", _E, "file", "`layer: service` (not atom, molecule or compound)"),
        Rule("name-missing", _E, "any", "no `name:` field"),
        Rule("name-format", _E, "any", "`name: Bad_Name` or `name: bad--name`"),
        Rule("name-too-long", _E, "any", "a name of more than 64 characters"),
        Rule("name-mismatch", _E, "any", "`name: foo` in folder `bar/`"),
        Rule("name-duplicate", _E, "any", "two folders both declare `name: calendar`"),
        Rule("name-shadowed", _W, "any", "a project skill `calendar` over the user's `calendar`"),
        Rule("description-missing", _E, "any", "no `description:` field, or an empty one"),
        Rule("description-too-long", _E, "any", "a description of more than 1024 characters"),
        Rule("compatibility-too-long", _E, "any", "a compatibility of more than 500 characters"),
        Rule("unknown-field", _W, "any", "`author: someone` at the top level"),
        Rule("reference-broken", _W, "any", "the body links `../atom-gone/SKILL.md`"),
        Rule("evals-invalid", _E, "any", 'evals/evals.json without `"evals": [...]`'),
        Rule("evals-id-duplicate", _E, "any", "two cases of evals/evals.json with `id: 1`"),
        Rule("evals-file-missing", _E, "any", 'a case naming `"files": ["gone.csv"]`'),
        Rule("triggers-invalid", _E, "any", "evals/triggers.json entry without `should_trigger`"),
        Rule("atom-delegates", _E, "layered", "an atom with `delegates-to: [other]`"),
        Rule("delegates-missing", _E, "layered", "a molecule without `delegates-to`"),
        Rule("delegate-unknown", _E, "layered", "`delegates-to: [atom-typo]`, no such skill"),
        Rule("delegate-layer", _E, "layered", "a compound delegating straight to an atom"),
        Rule("delegation-cycle", _E, "layered", "molecule-a -> molecule-b -> molecule-a"),
        Rule(
            "atom-not-standalone",
            _W,
            "layered",
            'an atom without `metadata.standalone` (`"false"` says it needs its molecule)',
        ),
        Rule("fanout-high", _W, "layered", "a molecule delegating to 11 atoms"),
        Rule("unreachable", _W, "layered", "a molecule no compound delegates to"),
        Rule(
            "interaction-rules-missing",
            _W,
            "layered",
            "a molecule body without 'one question at a time' and lettered options",
        ),
    )
}


def finding(
    rule: str,
    path: Path,
    line: int,
    message: str,
    hint: str | None = None,
    skill: str | None = None,
) -> Diagnostic:
    """A Diagnostic for `rule`, with the severity the catalogue gives it."""
    return Diagnostic(rule, RULES[rule].severity, path, line, message, hint, skill)
