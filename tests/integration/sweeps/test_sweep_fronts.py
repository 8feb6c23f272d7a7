"""A sweep started over RPC and from an editor (ACP): real `workbench` processes, whose runs are
real child processes against the local model server; progress arrives as events and lines, the
answer is the comparison, and stopping ends every run."""

from __future__ import annotations

import asyncio
from pathlib import Path

from support.acp_client import TIMEOUT, acp_workbench, prompt_blocks
from support.git_project import make_project
from support.mcp_config import allow_start, stdio_entry, write_servers
from support.openai_server import OpenAIServer, Reply
from support.sweep_answers import CHECK, slow, writes_its_file

from workbench.sweeps.runs import SWEEP_MARKER

TWO = ["model=openai/good", "model=openai/bad"]


def model_of(server: OpenAIServer) -> tuple[str, ...]:
    return ("--model", "openai/good", "--api-base", server.url, "--api-key", "none")


def survivors(pid: int) -> list[int]:
    """Live processes of a sweep that process `pid` started."""
    needle = f"{SWEEP_MARKER}={pid}-".encode()
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if needle in environ.read_bytes():
                stat = (environ.parent / "stat").read_text().rsplit(")", 1)[1].split()
                if stat[0] != "Z":
                    found.append(int(environ.parent.name))
        except OSError:
            continue
    return found


def test_rpc_sweep_streams_each_runs_progress_and_answers_the_comparison(
    tmp_path: Path, server: OpenAIServer, rpc_process
) -> None:
    project = make_project(tmp_path / "repo")
    server.add(*[writes_its_file] * 4)
    rpc = rpc_process(*model_of(server), cwd=project)
    rpc.send(type="sweep", id="s1", prompt="write your file", variants=TWO, jobs=2, check=CHECK)
    start = rpc.wait_type("sweep_start")
    assert [r["branch"] for r in start["sweep"]["runs"]] == ["sweep-1.good-1", "sweep-1.bad-1"]
    assert start["jobs"] == 2
    rpc.send(type="get_state", id="g1")  # the sweep runs in the background: RPC still answers
    assert rpc.wait_type("response", id="g1")["success"] is True
    answer = rpc.wait_type("response", id="s1")
    assert answer["success"] is True, answer
    comparison = answer["data"]
    assert comparison["sweep"] == "sweep-1"
    assert [v["name"] for v in comparison["variants"]] == ["good", "bad"]
    runs = {r["variant"]: r for r in comparison["runs"]}
    assert runs["good"]["check"]["passed"] is True and runs["bad"]["check"]["passed"] is False
    assert runs["good"]["tokens"] == {"input": 240, "output": 60, "cache_read": 0, "cache_write": 0}
    progress = [e for e in rpc.events if e["type"] == "sweep_progress"]
    told = [(e["run"]["branch"], e["run"]["outcome"]) for e in progress]
    for branch in ("sweep-1.good-1", "sweep-1.bad-1"):
        assert (branch, "running") in told and (branch, "done") in told
    assert any(e["tool"] == "write" for e in progress)  # the tool a run was in
    end = [e for e in rpc.events if e["type"] == "sweep_end"]
    assert len(end) == 1 and end[0]["comparison"] == comparison
    rpc.send(type="sweeps", id="l1")
    assert [s["sweep"] for s in rpc.wait_type("response", id="l1")["data"]] == ["sweep-1"]


def test_rpc_stop_sweep_ends_every_run_aborted_and_resume_runs_only_those_again(
    tmp_path: Path, server: OpenAIServer, rpc_process
) -> None:
    project = make_project(tmp_path / "repo")
    server.add(slow, slow)
    rpc = rpc_process(*model_of(server), cwd=project)
    rpc.send(type="sweep", id="s1", prompt="talk", variants=["model=openai/a", "model=openai/b"])
    for _ in range(2):
        rpc.wait_for(lambda e: e["type"] == "sweep_progress" and e["run"]["outcome"] == "running")
    rpc.wait_for(lambda e: len(server.requests) == 2 or e["type"] == "sweep_end")
    rpc.send(type="stop_sweep", id="x1")
    answer = rpc.wait_type("response", id="s1")
    assert rpc.wait_type("response", id="x1")["data"] == {"stopped": True}
    assert [r["outcome"] for r in answer["data"]["runs"]] == ["aborted", "aborted"]
    assert survivors(rpc.process.pid) == []
    server.add(*[writes_its_file] * 4)
    rpc.send(type="sweep", id="r1", resume="sweep-1")  # only what the stop left undone
    resumed = rpc.wait_type("response", id="r1")
    assert resumed["success"] is True, resumed
    assert resumed["data"]["sweep"] == "sweep-1"
    assert [r["outcome"] for r in resumed["data"]["runs"]] == ["done", "done"]
    rpc.send(type="sweeps", id="l1")
    assert [s["sweep"] for s in rpc.wait_type("response", id="l1")["data"]] == ["sweep-1"]
    assert rpc.close() == 0


def test_rpc_sweep_without_a_question_is_refused_with_a_hint(
    tmp_path: Path, server: OpenAIServer, rpc_process
) -> None:
    project = make_project(tmp_path / "repo")
    rpc = rpc_process(*model_of(server), cwd=project)
    rpc.send(type="sweep", id="s1", prompt="", variants=TWO)
    answer = rpc.wait_type("response", id="s1")
    assert answer["success"] is False
    assert answer["error"] == "a sweep needs a question" and "/sweep" in answer["hint"]
    assert server.requests == []


async def test_acp_slash_sweep_tells_each_run_and_answers_the_table(
    tmp_path: Path, server: OpenAIServer
) -> None:
    project = make_project(tmp_path / "repo")
    server.add(*[writes_its_file] * 4)
    async with acp_workbench(project, *model_of(server)) as (conn, client, _):
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        offered = await client.wait_for(lambda u: u.session_update == "available_commands_update")
        assert "sweep" in {c.name for c in offered.available_commands}
        text = f'/sweep --variant {TWO[0]} --variant {TWO[1]} --jobs 2 --check "{CHECK}" -- go'
        done = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=prompt_blocks(text)), TIMEOUT
        )
        assert done.stop_reason == "end_turn"
        said = client.text(sid)
        assert "sweep-1: 2 runs, 2 at once" in said
        assert "sweep-1.good-1: done" in said and "check pass" in said
        assert "sweep-1.bad-1: done" in said and "check FAIL(1)" in said
        table = said[said.index("```") :]
        variants = table[table.index("variant ") :].splitlines()
        assert variants[1].startswith("good") and variants[2].startswith("bad")


async def test_acp_cancel_stops_the_sweeps_runs(tmp_path: Path, server: OpenAIServer) -> None:
    project = make_project(tmp_path / "repo")
    server.add(slow, slow)
    async with acp_workbench(project, *model_of(server)) as (conn, client, _):
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        text = "/sweep --variant model=openai/a --variant model=openai/b --jobs 2 -- talk"
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=prompt_blocks(text)))
        await client.wait_for(lambda u: "sweep-1.b-1: running" in client.text(sid))
        await client.wait_for(lambda u: "sweep-1.a-1: running" in client.text(sid))
        await conn.cancel(session_id=sid)
        done = await asyncio.wait_for(turn, TIMEOUT)
        assert done.stop_reason == "cancelled"
        assert "sweep-1.a-1: aborted" in client.text(sid)
        assert survivors(client.process.pid) == []


def test_rpc_a_run_stopped_during_its_check_is_aborted_not_passed(
    tmp_path: Path, server: OpenAIServer, rpc_process
) -> None:
    project = make_project(tmp_path / "repo")
    server.add(*[writes_its_file] * 2)
    rpc = rpc_process(*model_of(server), cwd=project)
    rpc.send(
        type="sweep", id="s1", prompt="write", variants=["model=openai/good"], check="sleep 60"
    )
    rpc.wait_for(lambda e: e["type"] == "sweep_progress" and e["tool"] == "check")
    rpc.send(type="stop_sweep", id="x1")
    comparison = rpc.wait_type("response", id="s1")["data"]
    [run] = comparison["runs"]
    assert run["outcome"] == "aborted" and run["check"] is None
    assert comparison["variants"][0]["passed"] == 0
    assert survivors(rpc.process.pid) == []


def test_a_sweep_run_gets_the_mcp_servers_its_session_was_handed(
    tmp_path: Path, server: OpenAIServer, rpc_process
) -> None:
    allow_start()
    project = make_project(tmp_path / "repo")
    handed = write_servers(tmp_path / "handed.json", {"ed": stdio_entry(tmp_path / "ed.started")})
    server.add(
        Reply(text="asking", tool_calls=[{"name": "mcp__ed__echo", "arguments": {"text": "run"}}]),
        Reply(text="the server said echo: run"),
    )
    rpc = rpc_process(*model_of(server), "--mcp-config", str(handed), cwd=project)
    rpc.send(type="sweep", id="s1", prompt="ask the server")
    answer = rpc.wait_type("response", id="s1")
    assert answer["success"], answer
    first, second = server.requests
    assert "mcp__ed__echo" in [t["function"]["name"] for t in first["tools"]]
    assert [m["content"] for m in second["messages"] if m["role"] == "tool"] == ["echo: run"]
