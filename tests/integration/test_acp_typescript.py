"""A client no one here wrote, in another language: the protocol's TypeScript SDK drives
`workbench --mode acp` through the same scenario as test_acp_mode.py (tests/acp_ts/client.mjs).

Its packages come from tests/acp_ts/package-lock.json (`npm ci --prefix tests/acp_ts`, which
.ci/run does). Under CI (`WORKBENCH_CI` or `CI` set) a missing node or missing packages fail the
test; elsewhere they skip it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from support.ci import missing
from support.git_project import make_project
from support.workbench_process import write_script

CLIENT = Path(__file__).resolve().parents[1] / "acp_ts"


def _node() -> str:
    node = shutil.which("node")
    problem = None
    if node is None:
        problem = "node is not installed"
    elif not (CLIENT / "node_modules" / "@agentclientprotocol" / "sdk").is_dir():
        problem = "run `npm ci --prefix tests/acp_ts` first"
    if problem is not None:
        missing(f"the TypeScript ACP client cannot run: {problem}")
    assert node is not None
    return node


def test_the_typescript_sdk_drives_the_whole_scenario(tmp_path):
    node = _node()
    repo = make_project(tmp_path / "repo", {"notes.txt": "alpha\nbeta\n"})
    words = " ".join(f"word{n}" for n in range(200))
    model = write_script(
        tmp_path,
        [
            {
                "thinking": "Read first.",
                "text": "Let me read the notes and fix them.",
                "tool_calls": [
                    {"name": "read", "arguments": {"path": "notes.txt"}, "id": "c1"},
                    {
                        "name": "edit",
                        "arguments": {"path": "notes.txt", "old_text": "beta", "new_text": "gamma"},
                        "id": "c2",
                    },
                ],
            },
            {"text": "All done now."},
            {"text": words, "delay_ms": 50},
        ],
    )
    env = {**os.environ, "WB_PYTHON": sys.executable, "WB_MODEL": model, "WB_CWD": str(repo)}
    done = subprocess.run(
        [node, str(CLIENT / "client.mjs")],
        cwd=CLIENT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    print(
        f"TypeScript client: prompt->first chunk {summary['firstChunkMs']} ms, "
        f"cancel->end {summary['cancelMs']} ms"
    )

    assert summary["agentInfo"]["name"] == "workbench"
    assert summary["capabilities"]["loadSession"] is True
    assert summary["capabilities"]["sessionCapabilities"] == {"list": {}, "fork": {}}
    assert summary["modes"] == ["warn", "block", "off"]
    assert {"tree", "fork", "status", "diff", "commit", "merge"} <= set(summary["commands"])

    assert summary["firstStop"] == "end_turn"
    assert summary["toolCalls"] == [
        {"id": "c1", "kind": "read", "path": str(repo / "notes.txt")},
        {"id": "c2", "kind": "edit", "path": str(repo / "notes.txt")},
    ]
    assert summary["toolEnds"] == [
        {"id": "c1", "status": "completed", "content": ["content"]},
        {"id": "c2", "status": "completed", "content": ["diff", "content"]},
    ]
    assert summary["chunks"] > 3, "the reply streams in pieces"
    assert summary["reply"].endswith("All done now.")
    assert (repo / "notes.txt").read_text() == "alpha\ngamma\n"

    assert summary["cancelStop"] == "cancelled"
    assert summary["cancelMs"] < 2000

    assert summary["statusStop"] == "end_turn"
    assert summary["modeUpdates"] == ["block"]
    assert "enforcer mode: block" in summary["statusText"]

    sid = summary["sessionId"]
    assert sid.endswith("@main")
    assert summary["fork"]["sessionId"] == sid.replace("@main", "@fork-1")
    assert summary["fork"]["meta"]["workbench.fork"]["worktree"]
    assert set(summary["listed"]) == {sid, summary["fork"]["sessionId"]}

    assert summary["replayed"][:4] == [
        "user_message_chunk",
        "agent_thought_chunk",
        "agent_message_chunk",
        "tool_call",
    ]
    assert summary["replayedUser"].startswith("fix the notes")
