"""The grader's verdicts are strict JSON, and the eval's plain-words verdict says when the runs
are too few to tell."""

from __future__ import annotations

from workbench.evals.grading import parse_verdict
from workbench.evals.results import EvalReport, EvalRun


def runs(configuration: str, passed: list[bool]) -> list[EvalRun]:
    return [
        EvalRun("c1", configuration, n, f"sweep-1.{configuration}-{n}", "done", ok)
        for n, ok in enumerate(passed, 1)
    ]


def report(with_skill: list[bool], without: list[bool]) -> EvalReport:
    every = runs("with_skill", with_skill) + runs("without_skill", without)
    return EvalReport("s", [], ["with_skill", "without_skill"], every)


def test_only_a_json_object_with_a_boolean_passed_is_a_verdict() -> None:
    assert parse_verdict('{"passed": true, "evidence": "says 42"}') == (True, "says 42")
    assert parse_verdict(' {"passed": false}\n') == (False, "")
    assert parse_verdict("Sure! It passes.") == "not JSON"
    assert parse_verdict('```json\n{"passed": true}\n```') == "not JSON"
    assert parse_verdict('{"passed": "yes"}') == 'no boolean "passed"'


def test_two_runs_a_side_are_too_few_to_tell_even_when_they_all_differ() -> None:
    [delta] = report([True, True], [False, False]).deltas()
    assert delta["pass_rate"] == 1.0 and delta["runs"] == [2, 2]
    assert delta["verdict"].startswith("too few runs to tell (2 and 2")


def test_a_clear_difference_and_one_within_the_noise() -> None:
    [clear] = report([True] * 5, [False] * 5).deltas()
    assert clear["verdict"] == "with_skill passes more often: +100% over 5 and 5 runs"
    [noisy] = report([True, True, False], [True, False, False]).deltas()
    assert "within the noise of 3 and 3 runs" in noisy["verdict"]


def test_the_summary_is_the_issues_schema_with_means_and_spread() -> None:
    data = report([True, False, True], [False, False, False])
    data.runs[0].seconds, data.runs[1].seconds, data.runs[2].seconds = 10.0, 12.0, 14.0
    [with_skill, without] = data.to_json()["summary"]
    assert set(with_skill) == {
        "configuration",
        "runs",
        "pass_rate",
        "mean_seconds",
        "sd_seconds",
        "mean_tokens",
        "mean_cost",
        "uptake",
    }
    assert with_skill["pass_rate"] == 2 / 3 and without["pass_rate"] == 0.0
    assert with_skill["mean_seconds"] == 12.0 and with_skill["sd_seconds"] == 2.0
