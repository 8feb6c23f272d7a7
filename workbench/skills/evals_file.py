"""A skill's tests: `evals/evals.json` (cases) and `evals/triggers.json` (queries), read and
checked.

The shape is the Agent Skills guide's, `{"skill_name", "evals": [{"id", "prompt",
"expected_output", "files", "assertions"}]}`, plus our `checks` (shell commands run in the run's
worktree; exit 0 passes). `files` are relative to the skill folder. Triggers are
`[{"query", "should_trigger"}]`. `workbench eval` runs them and `workbench lint` reports what is
wrong with them under the rule ids below; both read them here, so they agree.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.skills.checks import Findings, LintContext, SkillChecks
from workbench.skills.model import Skill
from workbench.skills.rules import finding

EVALS_FILE = Path("evals") / "evals.json"
TRIGGERS_FILE = Path("evals") / "triggers.json"
CASE_KEYS = {"id", "prompt", "expected_output", "files", "assertions", "checks"}


@dataclass(frozen=True)
class EvalCase:
    """One case: the question, what a good answer holds, and how that is decided."""

    id: str
    prompt: str
    expected_output: str = ""
    files: tuple[str, ...] = ()
    assertions: tuple[str, ...] = ()
    checks: tuple[str, ...] = ()


@dataclass(frozen=True)
class Trigger:
    """A query and whether the skill's description should make the model load it."""

    query: str
    should_trigger: bool


@dataclass(frozen=True)
class Problem:
    """What is wrong with a file, under a lint rule id."""

    rule: str
    path: Path
    message: str


def _load(path: Path) -> tuple[Any, Problem | None]:
    rule = "triggers-invalid" if path.name == "triggers.json" else "evals-invalid"
    try:
        return json.loads(path.read_text(encoding="utf-8")), None
    except (OSError, UnicodeDecodeError) as exc:
        return None, Problem(rule, path, f"cannot be read: {exc}")
    except ValueError as exc:
        return None, Problem(rule, path, f"is not JSON: {exc}")


def _strings(value: Any) -> tuple[str, ...] | None:
    if value is None:
        return ()
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def _case(raw: Any, where: str, path: Path) -> tuple[EvalCase | None, list[Problem]]:
    if not isinstance(raw, dict):
        return None, [Problem("evals-invalid", path, f"{where} is not an object")]
    problems = [
        Problem("evals-invalid", path, f"{where}: unknown key {key!r}")
        for key in sorted(set(raw) - CASE_KEYS)
    ]
    case_id, prompt = raw.get("id"), raw.get("prompt")
    if not isinstance(case_id, (str, int)) or isinstance(case_id, bool) or case_id == "":
        problems.append(Problem("evals-invalid", path, f"{where}: `id` is a number or a name"))
    if not isinstance(prompt, str) or not prompt.strip():
        problems.append(Problem("evals-invalid", path, f"{where}: `prompt` is missing or empty"))
    expected = raw.get("expected_output", "")
    if not isinstance(expected, str):
        problems.append(Problem("evals-invalid", path, f"{where}: `expected_output` is text"))
    lists = {key: _strings(raw.get(key)) for key in ("files", "assertions", "checks")}
    for key, value in lists.items():
        if value is None:
            problems.append(Problem("evals-invalid", path, f"{where}: `{key}` is a list of text"))
    if problems:
        return None, problems
    case = EvalCase(
        str(case_id),
        str(prompt),
        str(expected),
        lists["files"] or (),
        lists["assertions"] or (),
        lists["checks"] or (),
    )
    skill_dir = path.parent.parent
    for file in case.files:
        if not (skill_dir / file).exists():
            problems.append(
                Problem("evals-file-missing", path, f"case {case.id}: no file {file!r}")
            )
    return case, problems


def read_evals(skill: Skill) -> tuple[list[EvalCase], list[Problem]]:
    """The skill's cases and what is wrong with its evals.json (no file: no cases)."""
    path = skill.path.parent / EVALS_FILE
    if not path.is_file():
        return [], []
    data, problem = _load(path)
    if problem is not None:
        return [], [problem]
    if not isinstance(data, dict) or not isinstance(data.get("evals"), list):
        return [], [Problem("evals-invalid", path, 'is not {"skill_name": ..., "evals": [...]}')]
    problems: list[Problem] = []
    named = data.get("skill_name")
    if named is not None and named != skill.name:
        problems.append(
            Problem("evals-invalid", path, f"skill_name is {named!r}, the skill is {skill.name}")
        )
    cases: list[EvalCase] = []
    seen: set[str] = set()
    for number, raw in enumerate(data["evals"], 1):
        case, found = _case(raw, f"case {number}", path)
        problems += found
        if case is None:
            continue
        if case.id in seen:
            problems.append(Problem("evals-id-duplicate", path, f"case id {case.id} twice"))
        seen.add(case.id)
        cases.append(case)
    return cases, problems


def read_triggers(skill: Skill) -> tuple[list[Trigger], list[Problem]]:
    """The skill's trigger queries and what is wrong with its triggers.json."""
    path = skill.path.parent / TRIGGERS_FILE
    if not path.is_file():
        return [], []
    data, problem = _load(path)
    if problem is not None:
        return [], [problem]
    if not isinstance(data, list):
        return [], [Problem("triggers-invalid", path, 'is not [{"query", "should_trigger"}]')]
    triggers, problems = [], []
    for number, raw in enumerate(data, 1):
        query = raw.get("query") if isinstance(raw, dict) else None
        should = raw.get("should_trigger") if isinstance(raw, dict) else None
        if not isinstance(query, str) or not query.strip() or not isinstance(should, bool):
            text = f"entry {number} is not {{'query': text, 'should_trigger': true|false}}"
            problems.append(Problem("triggers-invalid", path, text))
            continue
        triggers.append(Trigger(query, should))
    return triggers, problems


def problem_text(problem: Problem) -> str:
    return f"{problem.path}: {problem.rule} {problem.message}"


SKILL_CHECKS = SkillChecks()


def _findings(skill: Skill, problems: list[Problem], rule: str) -> Findings:
    hint = "see docs/evals.md for the shape"
    return tuple(
        finding(p.rule, p.path, 1, p.message, hint, skill.name) for p in problems if p.rule == rule
    )


def _register(rule: str) -> None:
    """A check of `rule` alone, so that `--select` and `--ignore` work per rule."""
    read = read_triggers if rule.startswith("triggers") else read_evals

    def check(skill: Skill, _context: LintContext) -> Findings:
        return _findings(skill, read(skill)[1], rule)

    SKILL_CHECKS.rule(rule)(check)


for _rule in ("evals-invalid", "evals-id-duplicate", "evals-file-missing", "triggers-invalid"):
    _register(_rule)
