"""`workbench sweep` end to end: real children, real git, the local model server answering per
model name."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path
from typing import Any

from support.git_project import make_project, snapshot
from support.openai_server import OpenAIServer, Reply
from support.workbench_process import run_workbench, write_user_settings

USAGE = {"prompt_tokens": 120, "completion_tokens": 30}


class PerModel:
    """Each model writes `<model>.txt`, then answers; the first requests wait until `width`
    models are in flight at once (or 10 s), so a test sees whether runs overlap."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.arrived: set[str] = set()
        self.all_in = threading.Event()
        self.overlapped = False
        self.lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Reply:
        model = str(body["model"])
        if body["messages"][-1]["role"] == "tool":
            return Reply(text=f"{model} wrote it", usage=USAGE)
        with self.lock:
            self.arrived.add(model)
            if len(self.arrived) >= self.width:
                self.all_in.set()
        self.overlapped = self.all_in.wait(10) or self.overlapped
        content = "ok\n" if model != "bad" else "not ok\n"
        args = {"path": f"{model}.txt", "content": content}
        return Reply(tool_calls=[{"name": "write", "arguments": args}], usage=USAGE)


def sweep(
    project: Path, server: OpenAIServer, *args: str, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return run_workbench(
        "sweep",
        "--api-base",
        server.url,
        "--api-key",
        "none",
        *args,
        cwd=project,
        timeout=timeout,
    )


def checkout(project: Path) -> dict[str, str]:
    """The user's checkout: HEAD, index, status and files (a sweep adds project branches for
    its worktrees, as `fork` does, and nothing else)."""
    seen = snapshot(project)
    del seen["branches"]
    return seen


def test_two_variants_run_at_once_each_checked_and_compared_with_the_servers_tokens(
    tmp_path: Path, server: OpenAIServer
) -> None:
    project = make_project(tmp_path / "repo")
    (project / "notes.txt").write_text("mine, uncommitted\n")
    before = checkout(project)
    index = (project / ".git" / "index").read_bytes()
    answers = PerModel(2)
    server.add(*[answers] * 8)
    done = sweep(
        project,
        server,
        "--variant",
        "model=openai/good",
        "--variant",
        "model=openai/bad",
        "--jobs",
        "2",
        "--check",
        "grep -q '^ok' *.txt && echo checked",
        "--format",
        "json",
        "--",
        "write your file",
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert answers.overlapped
    runs = {r["variant"]: r for r in report["runs"]}
    assert set(runs) == {"good", "bad"}
    assert runs["good"]["check"]["passed"] is True
    assert runs["good"]["check"]["tail"] == "checked"
    assert runs["bad"]["check"]["passed"] is False
    for run in runs.values():
        assert run["outcome"] == "done"
        assert run["tokens"] == {"input": 240, "output": 60, "cache_read": 0, "cache_write": 0}
        assert run["turns"] == 2 and run["tool_calls"] == 1
        assert run["files_changed"] == 1 and run["lines_added"] == 1
    variants = {v["name"]: v for v in report["variants"]}
    assert variants["good"]["pass_rate"] == 1.0 and variants["bad"]["pass_rate"] == 0.0
    assert report["variants"][0]["name"] == "good"  # the best first
    # The user's checkout is as it was: files, HEAD and index.
    assert checkout(project) == before
    assert (project / ".git" / "index").read_bytes() == index
    assert not (project / "good.txt").exists()


def test_an_unknown_variant_key_is_a_usage_error_before_anything_starts(
    tmp_path: Path, server: OpenAIServer
) -> None:
    project = make_project(tmp_path / "repo")
    done = sweep(project, server, "--variant", "modle=openai/a", "--", "hi")
    assert done.returncode == 2
    assert "unknown key 'modle'" in done.stderr
    assert server.requests == []
    assert not (project / ".git" / "workbench").exists() or "sweep" not in git_refs(project)


def git_refs(project: Path) -> str:
    return subprocess.run(
        ["git", "for-each-ref"], cwd=project, capture_output=True, text=True, check=True
    ).stdout


def test_repeats_are_summarised_listed_and_shown_again(
    tmp_path: Path, server: OpenAIServer
) -> None:
    project = make_project(tmp_path / "repo")
    server.add(*[PerModel(1)] * 8)
    done = sweep(
        project,
        server,
        "--variant",
        "model=openai/good",
        "--repeat",
        "2",
        "--jobs",
        "1",
        "--format",
        "json",
        "--",
        "write your file",
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [r["branch"] for r in report["runs"]] == ["sweep-1.good-1", "sweep-1.good-2"]
    [good] = report["variants"]
    assert good["runs"] == 2 and good["passed"] == 2 and good["pass_rate"] == 1.0
    assert good["mean_tokens"] == 300 and good["sd_seconds"] is not None
    listed = run_workbench("sweeps", cwd=project)
    assert "sweep-1" in listed.stdout and "write your file" in listed.stdout
    shown = run_workbench("sweep", "--show", "sweep-1", "--format", "json", cwd=project)
    assert json.loads(shown.stdout) == report


def test_max_tokens_stops_the_sweep_and_resume_runs_only_what_is_missing(
    tmp_path: Path, server: OpenAIServer
) -> None:
    project = make_project(tmp_path / "repo")
    server.add(*[PerModel(1)] * 12)
    done = sweep(
        project,
        server,
        "--variant",
        "model=openai/good",
        "--repeat",
        "2",
        "--jobs",
        "1",
        "--max-tokens",
        "400",
        "--format",
        "json",
        "--",
        "write your file",
    )
    assert done.returncode == 0, done.stderr
    # The first run's two answers use 300 tokens; the second run's first one reaches 400.
    assert "--max-tokens 400 reached (450 tokens spent)" in done.stderr
    first = json.loads(done.stdout)["runs"]
    assert [r["outcome"] for r in first] == ["done", "aborted"]
    asked = len(server.requests)
    assert asked == 3
    resumed = sweep(project, server, "--resume", "sweep-1", "--format", "json")
    assert resumed.returncode == 0, resumed.stderr
    runs = json.loads(resumed.stdout)["runs"]
    assert [r["outcome"] for r in runs] == ["done", "done"]
    assert runs[0] == first[0]  # kept as it was: only the missing run ran again
    assert len(server.requests) == asked + 2


def test_max_cost_is_refused_without_a_price_and_stops_the_sweep_once_spent(
    tmp_path: Path, server: OpenAIServer
) -> None:
    project = make_project(tmp_path / "repo")
    refused = sweep(
        project, server, "--variant", "model=openai/good", "--max-cost", "1", "--", "hi"
    )
    assert refused.returncode == 2
    assert "--max-cost needs every model's price, and openai/good has none" in refused.stderr
    assert server.requests == []
    # USD 1,000 per million tokens: the first answer (120 in, 30 out) costs 0.15.
    price = {"cost": {"input": 1000, "output": 1000}}
    write_user_settings({"models": {"openai/good": price}})
    server.add(*[PerModel(1)] * 8)
    done = sweep(
        project,
        server,
        "--variant",
        "model=openai/good",
        "--repeat",
        "2",
        "--jobs",
        "1",
        "--max-cost",
        "0.1",
        "--format",
        "json",
        "--",
        "write your file",
    )
    assert done.returncode == 0, done.stderr
    assert "--max-cost 0.1 reached ($0.1500 spent)" in done.stderr
    runs = json.loads(done.stdout)["runs"]
    assert [r["outcome"] for r in runs] == ["aborted", "aborted"]
    assert runs[0]["cost"] == 0.15
    assert len(server.requests) == 1


def skill_file(name: str) -> str:
    return f"---\nname: {name}\ndescription: Use for {name} work.\n---\n\nDo {name} things.\n"


def system_text(request: dict[str, Any]) -> str:
    content = request["messages"][0]["content"]
    return content if isinstance(content, str) else " ".join(p.get("text", "") for p in content)


def test_a_variant_chooses_the_skills_its_run_is_offered(
    tmp_path: Path, server: OpenAIServer
) -> None:
    skills = {f".pi/skills/{n}/SKILL.md": skill_file(n) for n in ("alpha", "beta")}
    project = make_project(tmp_path / "repo", {"README.md": "hi\n", **skills})
    server.add(*[Reply(text="ok")] * 3)
    done = sweep(
        project,
        server,
        "--variant",
        "model=openai/all",
        "--variant",
        "model=openai/none,skills=none",
        "--variant",
        "model=openai/one,skills=alpha",
        "--",
        "which skills do you have?",
    )
    assert done.returncode == 0, done.stderr
    offered = {r["model"]: system_text(r) for r in server.requests}
    assert "<name>alpha</name>" in offered["all"] and "<name>beta</name>" in offered["all"]
    assert (
        "<name>alpha</name>" not in offered["none"] and "<name>beta</name>" not in offered["none"]
    )
    assert "<name>alpha</name>" in offered["one"] and "<name>beta</name>" not in offered["one"]
    unknown = sweep(project, server, "--variant", "skills=gamma", "--", "hi")
    assert unknown.returncode == 2
    assert "no skill named gamma" in unknown.stderr and "alpha, beta" in unknown.stderr
