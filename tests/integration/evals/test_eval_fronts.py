"""An eval started over RPC and from an editor (ACP), as `/sweep` is: real `workbench`
processes whose runs are real children against the local model server; the runs' progress
arrives as the sweep's events and lines, the answer is the eval's comparison, and the report is
kept as the skill's last eval."""

from __future__ import annotations

import asyncio
from pathlib import Path

from support.acp_client import TIMEOUT, acp_workbench, prompt_blocks
from support.eval_answers import SKILL, answering, eval_project
from support.openai_server import OpenAIServer

MODEL = ("--model", "openai/agent", "--api-key", "none")
EVAL_S = 4 * TIMEOUT


def test_rpc_eval_streams_its_runs_and_answers_the_summary(
    tmp_path: Path, server: OpenAIServer, rpc_process
) -> None:
    project = eval_project(tmp_path / "repo")
    server.add(*[answering] * 12)
    rpc = rpc_process(*MODEL, "--api-base", server.url, cwd=project)
    rpc.send(type="eval", id="e1", skill=SKILL, repeat=1, jobs=2, grader="openai/grader")
    start = rpc.wait_type("sweep_start")
    assert len(start["sweep"]["runs"]) == 2 and start["jobs"] == 2
    # Two runs, then the checks and the grader: longer than one call on a loaded machine.
    answer = rpc.wait_for(lambda e: e["type"] == "response" and e.get("id") == "e1", EVAL_S)
    assert answer["success"] is True, answer
    summary = {row["configuration"]: row for row in answer["data"]["summary"]}
    assert summary["with_skill"]["pass_rate"] == 1.0 and summary["with_skill"]["uptake"] == 1.0
    assert summary["without_skill"]["pass_rate"] == 0.0
    progress = [e["run"] for e in rpc.events if e["type"] == "sweep_progress"]
    told = {(run["branch"], run["outcome"]) for run in progress}
    assert ("sweep-1.the-answer-with_skill-1", "done") in told
    assert [e["type"] for e in rpc.events].count("sweep_end") == 1
    rpc.send(type="eval", id="e2")  # no skill: the last evals, this one kept
    kept = rpc.wait_type("response", id="e2")["data"]["text"]
    assert kept.startswith(f"eval of {SKILL}: 1 case × 2 configurations (sweep-1)")


async def test_acp_slash_eval_tells_each_run_and_answers_the_comparison(
    tmp_path: Path, server: OpenAIServer
) -> None:
    project = eval_project(tmp_path / "repo")
    server.add(*[answering] * 12)
    async with acp_workbench(project, *MODEL, "--api-base", server.url) as (conn, client, _):
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        offered = await client.wait_for(lambda u: u.session_update == "available_commands_update")
        assert "eval" in {c.name for c in offered.available_commands}
        text = f"/eval {SKILL} --repeat 1 --jobs 2 --grader openai/grader"
        done = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=prompt_blocks(text)), EVAL_S
        )
        assert done.stop_reason == "end_turn"
        said = client.text(sid)
        assert "sweep-1: 2 runs, 2 at once" in said
        assert "sweep-1.the-answer-with_skill-1: done" in said
        assert f"eval of {SKILL}: 1 case × 2 configurations (sweep-1)" in said
        assert "with_skill vs without_skill (1 and 1 runs): pass rate +100%" in said
