"""`workbench eval` end to end: real children on their own branches and worktrees, real git,
the real enforcer, and the local model server answering per configuration: with the skill in
its system prompt the "model" follows it (and answers 42), without it, it guesses 41."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

from support.git_project import make_project
from support.openai_server import OpenAIServer, Reply
from support.workbench_process import run_workbench

USAGE = {"prompt_tokens": 100, "completion_tokens": 10}
MALFORMED = "The answer is short."
"""The assertion the scripted grader never answers with a JSON verdict."""


def skill(name: str, layer: str, below: str = "", body: str = "Follow the compound.") -> str:
    delegates = f'  delegates-to: "{below}"\n' if below else ""
    standalone = '  standalone: "true"\n' if layer == "atom" else ""
    return (
        f"---\nname: {name}\ndescription: Find the answer to the question of {name}. Use it "
        f"when asked for the answer.\nmetadata:\n  layer: {layer}\n{delegates}{standalone}---\n\n"
        f"# {name}\n\n{body}\n"
    )


def evals(assertions: list[str]) -> str:
    case = {
        "id": "the-answer",
        "prompt": "What is the answer? Write it to answer.txt.",
        "expected_output": "answer.txt holds 42",
        "files": ["evals/files/hint.txt"],
        "assertions": assertions,
        "checks": ["grep -qx 42 answer.txt", "test -f hint.txt"],
    }
    return json.dumps({"skill_name": "compound-answer", "evals": [case]})


def make_graph(tmp_path: Path, assertions: list[str], triggers: bool = False) -> Path:
    base = ".pi/skills"
    files = {
        f"{base}/compound-answer/SKILL.md": skill(
            "compound-answer", "compound", "molecule-answer", "The answer is 42."
        ),
        f"{base}/molecule-answer/SKILL.md": skill(
            "molecule-answer",
            "molecule",
            "atom-answer",
            "Ask one question at a time; offer lettered options (A, B) with one recommended.",
        ),
        f"{base}/atom-answer/SKILL.md": skill("atom-answer", "atom"),
        f"{base}/compound-answer/evals/evals.json": evals(assertions),
        f"{base}/compound-answer/evals/files/hint.txt": "think\n",
    }
    if triggers:
        files[f"{base}/compound-answer/evals/triggers.json"] = json.dumps(
            [
                {"query": "What is the answer? Just say it.", "should_trigger": True},
                {"query": "Say hello.", "should_trigger": False},
            ]
        )
    return make_project(tmp_path / "repo", files)


def _calls(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        call
        for m in body["messages"]
        if m["role"] == "assistant"
        for call in m.get("tool_calls") or []
    ]


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content)
    return str(content or "")


class Scripted:
    """The agent per configuration, and the grader (model `grader`). With the compound and its
    molecule in its system prompt, the agent reads them (the molecule first: out of order) and
    answers what the compound says (42; an older version says 40); without either, it guesses
    41."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.grader_requests: list[str] = []
        self.system_prompts: list[str] = []

    def grade(self, body: dict[str, Any]) -> Reply:
        question = _text(body["messages"][-1]["content"])
        with self.lock:
            self.grader_requests.append(question)
        whole = "\n".join(_text(m["content"]) for m in body["messages"])
        if MALFORMED in whole:
            return Reply(text="Sure! I think it passes.", usage=USAGE)
        passed = "The answer is 42" in whole
        evidence = "says 42" if passed else "says 41"
        return Reply(text=json.dumps({"passed": passed, "evidence": evidence}), usage=USAGE)

    def __call__(self, body: dict[str, Any]) -> Reply:
        if str(body["model"]).endswith("grader"):
            return self.grade(body)
        # The prompt without its last line, the working folder (the run's branch names a skill).
        system = _text(body["messages"][0]["content"]).split("Working folder:")[0]
        with self.lock:
            self.system_prompts.append(system)
        prompt = next(_text(m["content"]) for m in body["messages"] if m["role"] == "user")
        calls = _calls(body)
        paths = [str(json.loads(c["function"]["arguments"]).get("path", "")) for c in calls]
        written = any(c["function"]["name"] == "write" for c in calls)
        if "hello" in prompt:
            return Reply(text="Hello!", usage=USAGE)
        knows = "compound-answer" in system and "molecule-answer" in system
        if knows and not any("molecule-answer" in p for p in paths):
            # Out of order on purpose: the molecule before its compound (a violation).
            path = ".pi/skills/molecule-answer/SKILL.md"
            return Reply(tool_calls=[{"name": "read", "arguments": {"path": path}}], usage=USAGE)
        if knows and not any("compound-answer" in p for p in paths):
            path = ".pi/skills/compound-answer/SKILL.md"
            return Reply(tool_calls=[{"name": "read", "arguments": {"path": path}}], usage=USAGE)
        # The answer is what the compound it read says (none read: a guess).
        read = "\n".join(_text(m["content"]) for m in body["messages"] if m["role"] == "tool")
        said = re.search(r"The answer is (\d+)", read)
        answer = said.group(1) if said else "41"
        if not written and "Just say it" not in prompt:
            args = {"path": "answer.txt", "content": f"{answer}\n"}
            return Reply(tool_calls=[{"name": "write", "arguments": args}], usage=USAGE)
        return Reply(text=f"The answer is {answer}.", usage=USAGE)


def run_eval(
    project: Path, server: OpenAIServer, *args: str, timeout: float = 400
) -> tuple[int, str, str]:
    done = run_workbench(
        "eval",
        ".pi/skills/compound-answer",
        "--model",
        "openai/agent",
        "--grader",
        "openai/grader",
        "--api-base",
        server.url,
        "--api-key",
        "none",
        "--jobs",
        "2",
        *args,
        cwd=project,
        timeout=timeout,
    )
    return done.returncode, done.stdout, done.stderr


def test_pass_rates_follow_the_skill_graded_with_uptake_and_violations_from_the_enforcer(
    tmp_path: Path, server: OpenAIServer
) -> None:
    project = make_graph(tmp_path, ["The answer says 42."])
    script = Scripted()
    server.add(*[script] * 60)
    code, out, err = run_eval(project, server, "--format", "json", "--out", str(tmp_path / "out"))
    assert code == 0, err
    assert "6 runs" in err  # said before they start
    report = json.loads(out)
    assert set(report) == {"skill", "cases", "runs", "summary"}
    summary = {row["configuration"]: row for row in report["summary"]}
    assert summary["with_skill"]["runs"] == 3 and summary["without_skill"]["runs"] == 3
    assert summary["with_skill"]["pass_rate"] == 1.0
    assert summary["without_skill"]["pass_rate"] == 0.0
    assert summary["with_skill"]["uptake"] == 1.0 and summary["without_skill"]["uptake"] == 0.0
    assert summary["with_skill"]["mean_tokens"] == 4 * 110  # 4 model calls, as the server said
    for run in report["runs"]:
        graded = {g["text"]: g for g in run["graded"]}
        assert graded["test -f hint.txt"]["verdict"] == "passed"  # the case's file was there
        if run["configuration"] == "with_skill":
            assert run["uptake"]["loaded"] and run["uptake"]["turn"] == 2
            assert run["uptake"]["violations"] == 1  # the molecule read before its compound
            assert run["uptake"]["layers"] == ["molecule", "compound"]
            assert graded["The answer says 42."] == {
                "kind": "assertion",
                "text": "The answer says 42.",
                "verdict": "passed",
                "evidence": "says 42",
            }
        else:
            assert not run["uptake"]["loaded"] and run["uptake"]["violations"] == 0
            assert graded["grep -qx 42 answer.txt"]["verdict"] == "failed"
            assert graded["The answer says 42."]["verdict"] == "failed"
    # Without the skill, nothing of it reached the model: not in its prompt, not in its tree.
    without = [p for p in script.system_prompts if "compound-answer" not in p]
    assert without and all("atom-answer" in p for p in without)  # the rest of the graph stayed
    benchmark = json.loads((tmp_path / "out" / "benchmark.json").read_text())
    [delta] = benchmark["deltas"]
    assert delta["pass_rate"] == 1.0 and delta["runs"] == [3, 3]
    assert delta["verdict"].startswith("with_skill passes more often")
    page = (tmp_path / "out" / "report.html").read_text()
    assert "<svg" in page and "with_skill" in page and "says 42" in page


def test_flat_catalog_malformed_verdicts_and_triggers(tmp_path: Path, server: OpenAIServer) -> None:
    project = make_graph(tmp_path, ["The answer says 42.", MALFORMED], triggers=True)
    script = Scripted()
    server.add(*[script] * 60)
    out_dir = tmp_path / "out"
    code, out, err = run_eval(
        project, server, "--repeat", "1", "--catalog", "flat", "--out", str(out_dir)
    )
    assert code == 0, err
    assert "flat_catalog" in out
    flat = [p for p in script.system_prompts if "<available_skills>" in p]
    assert flat, "a flat-catalog run offers the skills as a flat list"
    for prompt in flat:
        assert "compound-answer" in prompt and "Skill graph" not in prompt
        assert "Rules" not in prompt and "compound ->" not in prompt
    graph = [p for p in script.system_prompts if "## Skill graph" in p]
    assert graph and all("<available_skills>" not in p for p in graph)
    # The malformed verdict was asked twice per run (one retry), then left ungraded: no pass.
    asked = [q for q in script.grader_requests if MALFORMED in q]
    retried = [q for q in script.grader_requests if "not a JSON verdict" in q]
    assert len(asked) == 3 and len(retried) == 3  # 3 configurations, 1 run each
    benchmark = json.loads((out_dir / "benchmark.json").read_text())
    assert [r["configuration"] for r in benchmark["runs"]] == [
        "with_skill",
        "without_skill",
        "flat_catalog",
    ]
    for run in benchmark["runs"]:
        verdicts = {g["text"]: g["verdict"] for g in run["graded"]}
        assert verdicts[MALFORMED] == "ungraded" and run["passed"] is False
    flat_run = benchmark["runs"][2]
    assert flat_run["uptake"]["loaded"] is True  # no enforcer: its reads, by detection
    assert flat_run["uptake"]["layers"] == ["molecule", "compound"]
    assert flat_run["uptake"]["violations"] == 0  # nothing checks the order
    assert benchmark["triggers"]["precision"] == 1.0 and benchmark["triggers"]["recall"] == 1.0
    assert "description: precision 100%, recall 100%" in out


def test_ablation_removes_each_part_of_the_compound_in_turn(
    tmp_path: Path, server: OpenAIServer
) -> None:
    project = make_graph(tmp_path, [])
    script = Scripted()
    server.add(*[script] * 60)
    code, out, err = run_eval(project, server, "--ablate", "--repeat", "6")
    assert code == 2 and "would start 24 runs" in err and "--yes" in err
    assert server.requests == []  # asked first: nothing started
    code, out, err = run_eval(project, server, "--ablate", "--repeat", "1", "--format", "json")
    assert code == 0, err
    summary = {row["configuration"]: row["pass_rate"] for row in json.loads(out)["summary"]}
    assert summary == {
        "with_skill": 1.0,
        "without_skill": 0.0,
        "without_molecule-answer": 0.0,
        "without_atom-answer": 1.0,
    }


def test_an_older_version_and_the_enforcers_block_mode_are_configurations_of_their_own(
    tmp_path: Path, server: OpenAIServer
) -> None:
    project = make_graph(tmp_path, [])
    old = tmp_path / "old-compound-answer"
    old.mkdir()
    (old / "SKILL.md").write_text(
        skill("compound-answer", "compound", "molecule-answer", "The answer is 40.")
    )
    script = Scripted()
    server.add(*[script] * 60)
    code, out, err = run_eval(
        project,
        server,
        "--repeat",
        "1",
        "--against",
        str(old),
        "--enforcer",
        "block,off",
        "--format",
        "json",
    )
    assert code == 0, err
    runs = {run["configuration"]: run for run in json.loads(out)["runs"]}
    assert list(runs) == [
        "with_skill",
        "without_skill",
        "previous",
        "enforcer_block",
        "enforcer_off",
    ]
    passed = {name: run["passed"] for name, run in runs.items()}
    assert passed == {
        "with_skill": True,
        "without_skill": False,
        "previous": False,  # the older version says 40
        "enforcer_block": True,
        "enforcer_off": True,
    }
    assert "The answer is 40" in runs["previous"]["output"]
    uptake = {name: run["uptake"] for name, run in runs.items()}
    assert uptake["with_skill"]["violations"] == 1  # warn: read, and recorded as a violation
    assert uptake["enforcer_block"]["violations"] == 1  # block: refused, and recorded
    assert uptake["enforcer_block"]["layers"] == ["compound"]  # the refused read loaded nothing
    assert uptake["enforcer_off"]["violations"] == 0
    assert uptake["enforcer_off"]["layers"] == ["molecule", "compound"]
