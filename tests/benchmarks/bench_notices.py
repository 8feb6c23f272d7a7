"""What the enforcer's notices cost a real run (a script, not part of the test run).

    python tests/benchmarks/bench_notices.py

Runs scripted replies through the real loop, litellm and the local OpenAI-compatible server, on
the example skill tree of the tests, and counts per scenario: the tool calls, the calls skipped,
the notices the model was sent and the tokens they add (characters / 4, as the compactor counts),
whether they rode on a tool result or came as a message of their own.

Scenarios: `batch` reads a molecule, re-reads its compound and reads two of its atoms in one
reply (nothing is wrong: goal, 0 calls skipped); `correction` reads an atom out of order with
another read in the same reply, loads the molecule as told, then reads the atom again (one real
violation: exactly the other read of that reply is skipped, and the correction is `ok`).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from support.openai_server import OpenAIServer, Reply
from support.skill_trees import write_tree

from workbench.agent.events import event_dict
from workbench.runtime import Workbench, WorkbenchOptions

NOTICE = "[skill graph] "
NOTICE_KINDS = ("Repeated skill load", "Skill loading cycle", "Skill loading violation")


def reads(*names: str) -> Reply:
    paths = [f".pi/skills/{name}/SKILL.md" for name in names]
    return Reply(tool_calls=[{"name": "read", "arguments": {"path": p}} for p in paths])


SCENARIOS = {
    "batch": [
        reads("triage-bug"),
        reads("reproduce-bug", "triage-bug", "run-tests", "extract-text"),
    ],
    "correction": [
        reads("triage-bug"),
        reads("outline", "extract-text"),
        reads("write-draft"),
        reads("outline"),
    ],
}


def _notices_in(text: str) -> list[str]:
    """The notices appended to a tool result: a title line and the suggestion after it."""
    lines = text.split("\n")
    return [
        "\n".join(lines[i : i + 2])
        for i, line in enumerate(lines)
        if line.startswith(NOTICE) and any(kind in line for kind in NOTICE_KINDS)
    ]


async def measure(name: str, replies: list[Reply]) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as folder, OpenAIServer() as server:
        project = Path(folder)
        (project / ".git").mkdir()
        write_tree(project / ".pi" / "skills")
        server.add(*replies, Reply(text="done"))
        options = WorkbenchOptions(cwd=project, model="openai/m", api_base=server.url, api_key="k")
        workbench = await Workbench.open(options)
        events: list[dict] = []
        workbench.subscribe(lambda e: events.append(event_dict(e)))
        await workbench.prompt("go")
        await workbench.wait_idle()
        messages = list(workbench.agent.state.messages)
        await workbench.close()
    ends = [e for e in events if e["type"] == "tool_execution_end"]
    in_results = [
        notice for m in messages if m.role == "tool_result" for notice in _notices_in(m.text)
    ]
    as_messages = [m.text for m in messages if m.role == "notice" and m.text.startswith(NOTICE)]
    notices = in_results + as_messages
    verdicts = [e["verdict"] for e in events if e["type"] == "skill_load"]
    return {
        "scenario": name,
        "calls": len(ends),
        "skipped": sum(1 for e in ends if e["skipped"]),
        "notices": len(notices),
        "on results": len(in_results),
        "as messages": len(as_messages),
        "notice tokens": sum(len(n) for n in notices) // 4,
        "verdicts": " ".join(verdicts),
    }


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    for name, replies in SCENARIOS.items():
        row = asyncio.run(measure(name, replies))
        print("  ".join(f"{key}: {value}" for key, value in row.items()))


if __name__ == "__main__":
    main()
