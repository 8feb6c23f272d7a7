"""Folding a child's event lines into its report, and the result text's size budget."""

from __future__ import annotations

import json
import re
from pathlib import Path

from workbench.agent.subagents.report import ChildReport
from workbench.agent.subagents.text import progress, result_text


def lines(*events: dict) -> list[bytes]:
    return [json.dumps(e).encode() for e in events]


def finished(answer: str, agent: str = "scout") -> ChildReport:
    report = ChildReport(agent=agent, source="user", task="t")
    for line in lines(
        {"type": "message_end", "message": {"role": "assistant", "text": answer}},
        {"type": "agent_end", "stop_reason": "completed"},
    ):
        report.add_line(line)
    report.conclude(0, "")
    return report


def test_a_clean_finish_is_completed_but_a_bad_exit_code_is_not() -> None:
    assert finished("done").status == "completed"
    report = finished("done")
    report.conclude(1, "Traceback ...")
    assert (report.status, report.error) == (
        "failed",
        "the child stopped: completed (exit code 1)",
    )


def test_the_last_assistant_text_is_the_answer_and_usage_adds_up() -> None:
    report = ChildReport(agent="a", source="user", task="t")
    usage = {"input_tokens": 10, "output_tokens": 2, "cache_read_tokens": 5}
    for line in lines(
        {"type": "session", "model": "openai/x"},
        {"type": "message_end", "message": {"role": "assistant", "text": "first", "usage": usage}},
        {"type": "tool_execution_start", "tool_name": "bash", "args": {"command": "ls -l\nx"}},
        {"type": "message_end", "message": {"role": "tool_result", "text": "tool output"}},
        {"type": "message_end", "message": {"role": "assistant", "text": "", "usage": usage}},
        {"type": "usage_update", "total_cost": 0.25},
    ):
        report.add_line(line)
    assert (report.model, report.answer, report.turns, report.cost) == (
        "openai/x",
        "first",
        2,
        0.25,
    )
    assert (report.usage.input, report.usage.output, report.usage.cache_read) == (20, 4, 10)
    assert report.current_tool == "bash: ls -l"


def test_skill_loads_and_violations_are_kept_apart() -> None:
    report = ChildReport(agent="a", source="user", task="t")
    for line in lines(
        {"type": "skill_load", "skill": "atom-x", "standalone": True, "verdict": "ok"},
        {"type": "skill_load", "skill": "molecule-y", "verdict": "violation", "reason": "why"},
    ):
        report.add_line(line)
    assert [load["skill"] for load in report.skill_loads] == ["atom-x", "molecule-y"]
    assert [v["skill"] for v in report.violations] == ["molecule-y"]


def test_answers_share_the_budget_and_a_cut_one_is_kept_in_a_file() -> None:
    long, short = "a" * 6000, "b" * 100
    text = result_text("parallel", [finished(long, "one"), finished(short, "two")], 10_000)
    assert "a" * 5000 + "\n\n[Answer cut at 5,000 of 6,000 characters." in text
    assert "a" * 5001 not in text and "b" * 100 in text
    kept = re.search(r"The full answer: (\S+)\]", text)
    assert kept and Path(kept.group(1)).read_text() == long
    Path(kept.group(1)).unlink()


def test_parallel_progress_rows_name_each_task_and_a_finished_child_is_not_running() -> None:
    tasks = [
        "find where the config is loaded",
        "find every caller of parse_args()\nand list them",
        "find the tests for the CLI",
    ]
    reports = [ChildReport(agent="finder", source="project", task=task) for task in tasks]
    for report in reports:
        report.status = "running"
    reports[0].add_line(
        json.dumps(
            {"type": "tool_execution_start", "tool_name": "bash", "args": {"command": "rg cfg"}}
        ).encode()
    )
    for line in lines(  # the second child has told its outcome; its process has not exited yet
        {"type": "message_end", "message": {"role": "assistant", "text": "two callers"}},
        {"type": "agent_end", "stop_reason": "completed"},
    ):
        reports[1].add_line(line)

    rows = [row for row in progress("parallel", reports).splitlines() if not row.startswith(" ")]

    assert rows == [
        "parallel: 1 of 3 done, 2 running",
        '… #1 finder "find where the config is loaded" · bash: rg cfg · 0 in / 0 out',
        '✓ #2 finder "find every caller of parse_args()" · completed · 0 in / 0 out',
        '… #3 finder "find the tests for the CLI" · running · 0 in / 0 out',
    ]


def test_a_long_task_is_cut_in_its_progress_row() -> None:
    report = ChildReport(agent="scout", source="user", task="word " * 40, step=2, status="running")
    [row] = progress("chain", [report]).splitlines()[1:]
    excerpt = " ".join(["word"] * 8) + "…"
    assert row == f'… step 2: scout "{excerpt}" · running · 0 in / 0 out'
