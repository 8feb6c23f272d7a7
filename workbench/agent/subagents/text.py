"""The words of the `subagent` tool: live progress for front ends, and the result for the model.

Progress is plain text (it travels as `tool_execution_update.partial_result`): one header line per
child with its state, current tool and tokens, then its last lines. In parallel and chain calls a
child's line names its task (an excerpt), so children of one agent can be told apart. The result
gives every child's full final answer within a size budget shared by the answers of one call; an
answer that does not fit is cut with a notice naming the file that holds all of it.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence

from workbench.agent.subagents.report import ChildReport
from workbench.text import count_of

MARKS = {"pending": "·", "running": "…", "completed": "✓", "failed": "✗"}
TASK_EXCERPT_CHARS = 40


def _tokens(count: int) -> str:
    return f"{count}" if count < 1000 else f"{count / 1000:.1f}k"


def usage_line(report: ChildReport) -> str:
    """`2 turns · 1.2k in / 310 out · $0.0042 · model`: what the child cost."""
    parts = [count_of(report.turns, "turn")]
    usage = report.usage
    parts.append(f"{_tokens(usage.input)} in / {_tokens(usage.output)} out")
    if usage.cache_read:
        parts.append(f"{_tokens(usage.cache_read)} cached")
    if usage.cache_write:
        parts.append(f"{_tokens(usage.cache_write)} cache write")
    parts.append(f"${report.cost:.4f}" if report.cost is not None else "cost unknown")
    if report.model:
        parts.append(report.model)
    return " · ".join(parts)


def _label(report: ChildReport) -> str:
    step = f"step {report.step}: " if report.step is not None else ""
    return f"{step}{report.agent}"


def _excerpt(task: str) -> str:
    """The task's first line, cut to `TASK_EXCERPT_CHARS`."""
    first = next((line.strip() for line in task.splitlines() if line.strip()), "")
    first = " ".join(first.split())
    if len(first) <= TASK_EXCERPT_CHARS:
        return first
    return first[:TASK_EXCERPT_CHARS].rsplit(" ", 1)[0] + "…"


def _row_label(mode: str, index: int, report: ChildReport) -> str:
    """`scout` alone; `#2 scout "task…"` in parallel; `step 2: scout "task…"` in a chain."""
    if mode == "single":
        return report.agent
    number = _label(report) if mode == "chain" else f"#{index} {report.agent}"
    return f'{number} "{_excerpt(report.task)}"'


def _shown_status(report: ChildReport) -> str:
    """A child that has told its outcome (`agent_end`) but whose process has not exited yet is
    shown with that outcome, never as still running."""
    if report.status == "running" and report.stop_reason is not None:
        return "completed" if report.stop_reason == "completed" else "failed"
    return report.status


def progress(mode: str, reports: Sequence[ChildReport]) -> str:
    """The live view of a call: a summary line, then each started child."""
    statuses = [_shown_status(r) for r in reports]
    done = sum(status in ("completed", "failed") for status in statuses)
    running = statuses.count("running")
    if mode == "single":
        head: list[str] = []
    elif mode == "chain":
        head = [f"chain: step {max(1, done + running)} of {len(reports)}"]
    else:
        head = [f"parallel: {done} of {len(reports)} done, {running} running"]
    lines = head
    for index, (report, status) in enumerate(zip(reports, statuses, strict=True), 1):
        if status == "pending":
            continue
        state = report.current_tool or report.stop_reason or status
        usage = f"{_tokens(report.usage.input)} in / {_tokens(report.usage.output)} out"
        lines.append(f"{MARKS[status]} {_row_label(mode, index, report)} · {state} · {usage}")
        lines.extend(f"    {line}" for line in report.last_lines)
    return "\n".join(lines)


def _skills_line(report: ChildReport) -> str | None:
    loaded = [
        f"{load['skill']}{' (standalone)' if load.get('standalone') else ''}"
        for load in report.skill_loads
        if not load.get("blocked")
    ]
    return f"Skills loaded: {', '.join(loaded)}" if loaded else None


def _violation_lines(report: ChildReport) -> list[str]:
    return [
        f"Skill rule {load['verdict']}: {load['skill']}"
        + (" (blocked)" if load.get("blocked") else "")
        + (f": {load['reason']}" if load.get("reason") else "")
        for load in report.violations
    ]


def fit(answer: str, budget: int, agent: str) -> str:
    """`answer`, or its start and a notice naming the temp file that keeps all of it."""
    if len(answer) <= budget:
        return answer
    with tempfile.NamedTemporaryFile(
        "w", encoding="utf-8", prefix=f"workbench-subagent-{agent}-", suffix=".md", delete=False
    ) as full:
        full.write(answer)
    return (
        f"{answer[:budget]}\n\n[Answer cut at {budget:,} of {len(answer):,} characters. "
        f"The full answer: {full.name}]"
    )


def child_section(report: ChildReport, budget: int, with_task: bool) -> str:
    """One child in the result: outcome, the answer (fitted), cost, skills and violations."""
    outcome = report.stop_reason or report.status
    lines = [f"## {_label(report)} ({report.source} agent): {outcome}"]
    if with_task:
        lines.append(f"Task: {report.task}")
    if not report.ok:
        lines.append(f"Failed: {report.error}")
        if report.stderr:
            lines.append("Its stderr ends with:\n" + report.stderr[-1500:])
    if report.answer:
        lines += ["", fit(report.answer, budget, report.agent), ""]
    elif report.ok:
        lines.append("(no answer)")
    lines.append(f"[{usage_line(report)}]")
    skills = _skills_line(report)
    if skills:
        lines.append(skills)
    lines += _violation_lines(report)
    return "\n".join(lines)


def result_text(mode: str, reports: Sequence[ChildReport], budget: int) -> str:
    """The text the model reads. `budget` characters are shared by the answers."""
    share = max(1000, budget // max(1, len(reports)))
    if mode == "single":
        return child_section(reports[0], share, with_task=False)
    finished = [r for r in reports if r.finished]
    succeeded = sum(r.ok for r in finished)
    if mode == "parallel":
        head = f"Parallel: {succeeded} of {count_of(len(reports), 'task')} succeeded."
    else:
        failed = next((r for r in finished if not r.ok), None)
        head = (
            f"Chain stopped at step {failed.step} of {len(reports)} ({failed.agent}): "
            f"{failed.error}"
            if failed
            else f"Chain: all {count_of(len(reports), 'step')} succeeded; the last step's answer "
            "is the result."
        )
    sections = [child_section(r, share, with_task=True) for r in finished]
    return "\n\n".join([head, *sections])
