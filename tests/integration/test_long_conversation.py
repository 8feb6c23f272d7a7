"""A long conversation on a small context window, through the real litellm path: compaction
keeps happening automatically, the summary leads every later context, and the goal survives."""

from __future__ import annotations

import re
from typing import Any

from support.openai_server import Reply
from support.workbench_process import write_user_settings

from workbench.agent.compaction_plan import SUMMARY_SYSTEM_PROMPT
from workbench.agent.models.openai_format import COMPACTION_PREFIX
from workbench.agent.store import messages_of
from workbench.runtime import Workbench, WorkbenchOptions
from workbench.skills.graph import SkillGraph

GOAL = "GOAL: build the CSV parser with quoted fields"
PROMPTS = [GOAL, *(f"step {n}: keep going" for n in range(2, 17))]


def diligent_summariser(body: dict[str, Any]) -> Reply:
    """Plays the model. Summary requests are answered the way the update prompt asks (keep the
    previous goals, add what is new); ordinary turns get a long answer that fills the context."""
    messages = body["messages"]
    tokens = sum(len(str(m.get("content") or "")) for m in messages) // 4
    usage = {"prompt_tokens": tokens, "completion_tokens": 60}
    if messages[0]["content"] != SUMMARY_SYSTEM_PROMPT:
        filler = " ".join(f"detail{n}" for n in range(150))  # litellm rejects repeated chunks
        return Reply(text=f"Worked on it. {filler}", usage=usage)
    prompt = messages[-1]["content"]
    previous = re.search(r"<previous-summary>\n## Goal\n(.*?)\n\n", prompt, re.DOTALL)
    goals = previous.group(1).splitlines() if previous else []
    goals += [g for g in re.findall(r"^\[User\]: (GOAL.*)$", prompt, re.M) if g not in goals]
    steps = re.findall(r"^\[User\]: (step \d+)", prompt, re.M)
    done = "\n".join(f"- [x] {s}" for s in steps)
    return Reply(
        text=f"## Goal\n{chr(10).join(goals)}\n\n## Progress\n### Done\n{done}", usage=usage
    )


async def test_goal_survives_several_compactions(project, server) -> None:
    model = "openai/small-window"
    write_user_settings(
        {
            "models": {model: {"context_window": 2400}},
            "compaction": {"reserve_tokens": 600, "keep_recent_tokens": 400},
        },
    )
    server.add(*[diligent_summariser] * 60)
    workbench = await Workbench.open(
        WorkbenchOptions(
            cwd=project, model=model, api_base=server.url, api_key="k", skills=SkillGraph([])
        )
    )
    ends = []
    workbench.subscribe(lambda e: ends.append(e) if e.type == "compaction_end" else None)
    for prompt in PROMPTS:
        await workbench.prompt(prompt)
        assert await workbench.wait_idle() == "completed"

    summaries = [e.message for e in ends if e.message is not None]
    assert len(summaries) >= 3, f"expected several compactions, got {len(summaries)}"
    assert all(e.reason == "threshold" for e in ends)

    turns = [r for r in server.requests if r["messages"][0]["content"] != SUMMARY_SYSTEM_PROMPT]
    summary_requests = [r for r in server.requests if r not in turns]
    for later in summary_requests[1:]:
        assert "<previous-summary>\n## Goal\n" + GOAL in later["messages"][-1]["content"]
    compacted = [t for t in turns if t["messages"][1]["content"].startswith(COMPACTION_PREFIX)]
    assert len(compacted) >= len(turns) // 2
    for request in compacted:
        assert GOAL in request["messages"][1]["content"], "the goal leads every later context"
    assert GOAL not in str(turns[-1]["messages"][2:]), "the original prompt itself was compacted"

    stored = messages_of(workbench.current.store.path())
    assert [m.text for m in stored if m.role == "user"] == PROMPTS, "nothing is lost from the log"
    assert workbench.state().context_tokens < 2400 - 600
