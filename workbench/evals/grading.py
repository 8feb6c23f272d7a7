"""Grading a run: its case's checks as commands in its worktree, its assertions by a grader model.

The grader is asked for one strict JSON verdict per assertion, `{"passed": true|false,
"evidence": "..."}` and nothing else. A malformed answer is asked once more, with what was wrong;
a second malformed answer (or a failed model call) leaves the assertion `ungraded`, which never
counts as passed.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from workbench.agent.models.client import ModelClient, ModelError, ModelRequest, TextDelta
from workbench.messages import Message
from workbench.sandbox import SandboxPolicy
from workbench.skills.evals_file import EvalCase
from workbench.sweeps.runs import run_check

Verdict = Literal["passed", "failed", "ungraded"]
OUTPUT_LIMIT = 12_000
"""Characters of the run's answer the grader sees (its end is kept: that is the conclusion)."""

INSTRUCTIONS = """You grade one assertion about the work of an AI coding agent.
You are given the task, the expected output, the agent's final answer, the files it changed, \
and one assertion. Decide whether the assertion holds for what the agent produced.
Answer with exactly one JSON object and nothing else, no code fence:
{"passed": true or false, "evidence": "a short quote or fact from the answer that decides it"}"""
RETRY = (
    "Your answer was not a JSON verdict ({problem}). Answer again with exactly one JSON object: "
    '{{"passed": true or false, "evidence": "..."}}'
)


@dataclass
class Graded:
    """One assertion or check and its verdict, with the evidence (the grader's, or the check's
    exit code and last lines)."""

    kind: Literal["assertion", "check"]
    text: str
    verdict: Verdict
    evidence: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Graded:
        return cls(**data)


def parse_verdict(text: str) -> tuple[bool, str] | str:
    """(passed, evidence) from a strict JSON verdict, or what is wrong with it."""
    try:
        data = json.loads(text.strip())
    except ValueError:
        return "not JSON"
    if not isinstance(data, dict) or not isinstance(data.get("passed"), bool):
        return 'no boolean "passed"'
    evidence = data.get("evidence", "")
    if not isinstance(evidence, str):
        return '"evidence" is not text'
    return data["passed"], evidence


async def _ask(model: ModelClient, messages: list[Message]) -> str:
    request = ModelRequest(INSTRUCTIONS, messages, purpose="turn", max_tokens=400)
    parts = [delta.text async for delta in model.stream(request) if isinstance(delta, TextDelta)]
    return "".join(parts)


def question(case: EvalCase, assertion: str, output: str, files: list[str]) -> str:
    shown = output[-OUTPUT_LIMIT:]
    return (
        f"## Task\n{case.prompt.strip()}\n\n"
        f"## Expected output\n{case.expected_output.strip() or '(not given)'}\n\n"
        f"## The agent's final answer\n{shown.strip() or '(no answer)'}\n\n"
        f"## Files it changed\n{chr(10).join(files) or '(none)'}\n\n"
        f"## Assertion\n{assertion.strip()}"
    )


async def grade_assertion(
    model: ModelClient, case: EvalCase, assertion: str, output: str, files: list[str]
) -> Graded:
    """The grader's verdict on one assertion: asked, asked once more if malformed, else
    ungraded."""
    messages = [Message(role="user", text=question(case, assertion, output, files))]
    answer = ""
    for attempt in range(2):
        try:
            answer = await _ask(model, messages)
        except ModelError as exc:
            return Graded("assertion", assertion, "ungraded", f"the grader failed: {exc.message}")
        verdict = parse_verdict(answer)
        if not isinstance(verdict, str):
            passed, evidence = verdict
            return Graded("assertion", assertion, "passed" if passed else "failed", evidence)
        if attempt == 0:
            messages += [
                Message(role="assistant", text=answer),
                Message(role="user", text=RETRY.format(problem=verdict)),
            ]
    shown = answer.strip()[:200] or "(nothing)"
    return Graded("assertion", assertion, "ungraded", f"no JSON verdict twice; last: {shown}")


async def run_checks(
    case: EvalCase, worktree: Path, timeout_s: float, sandbox: SandboxPolicy | None = None
) -> list[Graded]:
    """Each check command in the worktree (in the sandbox, as a sweep's check): passed when it
    exits 0."""
    graded = []
    for command in case.checks:
        check = await run_check(command, worktree, timeout_s, sandbox)
        evidence = f"exit {check.exit_code}" + (f": {check.tail}" if check.tail else "")
        graded.append(Graded("check", command, "passed" if check.passed else "failed", evidence))
    return graded
